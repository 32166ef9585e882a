/** When a transaction enters the pending pool: a pure function of (seed, h, i). */
import { PENDING_WINDOW } from '../constants.js';
import { hash4 } from '../rng.js';

const D_TX = 0x7478;

/** Head height at which tx (h, i) enters the pool: one of h-40 .. h-1. */
export function entryHeight(seed: number, h: number, i: number): number {
  return entryOf(h, hash4(seed, D_TX, h, i, 0));
}

/** Entry height of a tx of block h from its first hash word. */
export function entryOf(h: number, r0: number): number {
  return Math.max(0, h - 1 - (r0 % PENDING_WINDOW));
}

export function isPendingAt(seed: number, h: number, i: number, head: number): boolean {
  if (h <= head || h > head + PENDING_WINDOW) return false;
  return entryHeight(seed, h, i) <= head;
}
