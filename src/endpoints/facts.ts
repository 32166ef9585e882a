/**
 * The chain facts lifetime rules read, each declared once and read by both
 * INVALIDATION_MODE modes (through the endpoint rules): whether a height is
 * final, whether a block is within the trusted head, and whether a
 * transaction is still pending.
 */
import type { ChainView } from '../chain/types.js';
import { height, obj } from './kit.js';

/** A final height: at or below `final`, the highest block seen final (`chain.finalHeight()`; null: none is). */
export function isFinalHeight(h: number, final: number | null): boolean {
  return final !== null && h <= final;
}

/** A block at or below the best head the proxy trusts (no head yet: not within). */
export function withinHead(h: number | null, chain: ChainView): boolean {
  const head = chain.bestHead();
  return h !== null && head !== null && h <= head;
}

/**
 * The one test of a pending transaction: its record (a transaction's `data`)
 * shows status 2, or no block height, or is no record at all; null then.
 * Else the height of the block it was mined in.
 */
export function minedIn(tx: unknown): number | null {
  const d = obj(tx);
  if (d === null || d['status'] === 2) return null;
  return height(d['block_height']);
}
