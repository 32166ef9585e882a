/**
 * Closed-form transaction counts. Blocks are grouped by 1024 (position p = height - 1);
 * each group holds exactly GROUP_TOTAL transactions: one per block (the "slot" tx, index 0)
 * plus GROUP_EXTRA spread by a seeded binary split tree (10 levels). Hence:
 *  - txPrefix(h) (txs in blocks 1..h-1), txCountAt(h), locateTx(n) are O(10) hash calls;
 *  - the average is 2.76 txs per block, like the recorded chain (13.35M txs at 4.84M blocks).
 */
import { hash4 } from '../rng.js';

const LEVELS = 10;
const GROUP = 1 << LEVELS;
const GROUP_EXTRA = 1800;
const GROUP_TOTAL = GROUP + GROUP_EXTRA;
const D_SPLIT = 0x5a17;

/** Extra txs that go to the left half of a node holding `e` extras. */
function leftExtra(seed: number, g: number, level: number, node: number, e: number): number {
  if (e === 0) return 0;
  const u = hash4(seed, D_SPLIT, g, (level << 11) | node) / 4294967296;
  // more skew near the leaves: some blocks get bursts, many get only the slot tx
  const spread = level < 4 ? 0.5 : 0.98;
  return Math.floor(e * (0.5 + (u - 0.5) * spread));
}

/** Number of transactions in block h (h >= 1). */
export function txCountAt(seed: number, h: number): number {
  const p = h - 1;
  const g = Math.floor(p / GROUP);
  let r = p - g * GROUP;
  let e = GROUP_EXTRA;
  let node = 0;
  let size = GROUP;
  for (let level = 0; level < LEVELS; level++) {
    size >>= 1;
    const l = leftExtra(seed, g, level, node, e);
    if (r >= size) {
      e -= l;
      r -= size;
      node = node * 2 + 1;
    } else {
      e = l;
      node = node * 2;
    }
  }
  return 1 + e;
}

/** Number of transactions in blocks 1 .. h-1. */
export function txPrefix(seed: number, h: number): number {
  const p = h - 1;
  if (p <= 0) return 0;
  const g = Math.floor(p / GROUP);
  let r = p - g * GROUP;
  let acc = g * GROUP_TOTAL;
  let e = GROUP_EXTRA;
  let node = 0;
  let size = GROUP;
  for (let level = 0; level < LEVELS && r > 0; level++) {
    size >>= 1;
    const l = leftExtra(seed, g, level, node, e);
    if (r >= size) {
      acc += size + l;
      e -= l;
      r -= size;
      node = node * 2 + 1;
    } else {
      e = l;
      node = node * 2;
    }
  }
  return acc;
}

/** Block height and index of the transaction with global number n (0 = first tx of block 1). */
export function locateTx(seed: number, n: number): [number, number] {
  const g = Math.floor(n / GROUP_TOTAL);
  let rem = n - g * GROUP_TOTAL;
  let e = GROUP_EXTRA;
  let node = 0;
  let size = GROUP;
  let p = g * GROUP;
  for (let level = 0; level < LEVELS; level++) {
    size >>= 1;
    const l = leftExtra(seed, g, level, node, e);
    if (rem >= size + l) {
      rem -= size + l;
      e -= l;
      p += size;
      node = node * 2 + 1;
    } else {
      e = l;
      node = node * 2;
    }
  }
  return [p + 1, rem];
}

/** Non-slot ("extra", index >= 1) transactions in blocks 1 .. h-1: the extra number of the first extra of block h. */
export function extrasBefore(seed: number, h: number): number {
  return h <= 1 ? 0 : txPrefix(seed, h) - (h - 1);
}

/** Walks the split tree to extra number m: (block position p) * 4096 + rank in the block's extras, no allocation. */
function walkExtra(seed: number, m: number): number {
  const g = Math.floor(m / GROUP_EXTRA);
  let rem = m - g * GROUP_EXTRA;
  let e = GROUP_EXTRA;
  let node = 0;
  let size = GROUP;
  let p = g * GROUP;
  for (let level = 0; level < LEVELS; level++) {
    size >>= 1;
    const l = leftExtra(seed, g, level, node, e);
    if (rem >= l) {
      rem -= l;
      e -= l;
      p += size;
      node = node * 2 + 1;
    } else {
      e = l;
      node = node * 2;
    }
  }
  return p * 4096 + rem;
}

/** Block height and index (>= 1) of the extra transaction with extra number m (0-based). */
export function locateExtra(seed: number, m: number): [number, number] {
  const w = walkExtra(seed, m);
  return [Math.floor(w / 4096) + 1, 1 + (w % 4096)];
}

/** Block height of the extra transaction with extra number m. */
export function extraHeight(seed: number, m: number): number {
  return Math.floor(walkExtra(seed, m) / 4096) + 1;
}
