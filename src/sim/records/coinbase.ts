/** Block producers: the 21-member dynasty; each block's coinbase is its miner, who takes the block reward. */
import { normalAddress } from '../ids.js';
import { hash4 } from '../rng.js';
import type { Stream } from './layout.js';

const D_BLOCK = 0x626b;
const DYNASTY_SIZE = 21;
const DYNASTY_FIRST = 200_000;
const DYNASTY_STEP = 37;
const dynastyCache = new Map<number, { sorted: readonly string[]; pos: ReadonlyMap<number, number> }>();

function build(seed: number): { sorted: readonly string[]; pos: ReadonlyMap<number, number> } {
  let d = dynastyCache.get(seed);
  if (!d) {
    const members: [string, number][] = [];
    for (let j = 0; j < DYNASTY_SIZE; j++) {
      const a = DYNASTY_FIRST + j * DYNASTY_STEP;
      members.push([normalAddress(seed, a), a]);
    }
    members.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    d = { sorted: members.map((m) => m[0]), pos: new Map(members.map((m, p) => [m[1], p])) };
    dynastyCache.set(seed, d);
  }
  return d;
}

/** The 21 block producers (sorted), fixed per seed. */
export function dynasty(seed: number): readonly string[] {
  return build(seed).sorted;
}

function offset(seed: number): number {
  return hash4(seed, D_BLOCK, 0x6d) % DYNASTY_SIZE;
}

/** Position in dynasty() of the miner of block h. */
export function minerIndex(seed: number, h: number): number {
  return (h + offset(seed)) % DYNASTY_SIZE;
}

/** Normal index of block h's miner (its coinbase). */
export function minerOf(seed: number, h: number): number {
  const p = minerIndex(seed, h);
  for (const [a, q] of build(seed).pos) if (q === p) return a;
  return -1;
}

/** Heights whose reward goes to normal address a, or null when a is not a producer. */
export function coinbaseStream(seed: number, a: number): Stream | null {
  const p = build(seed).pos.get(a);
  if (p === undefined) return null;
  const base = (((p - offset(seed)) % DYNASTY_SIZE) + DYNASTY_SIZE) % DYNASTY_SIZE;
  return {
    kind: 'binary',
    extra: false,
    base,
    period: DYNASTY_SIZE,
    kStart: base === 0 ? 1 : 0,
    nrc: false,
    sent: false,
  };
}
