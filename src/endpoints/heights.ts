/**
 * Heads learned from answers: a block shown in any answer exists, so the
 * upstream's head is at least its height (applied through the chain facts,
 * with the tracker's bounded trust).
 */
import { height, obj } from './kit.js';

/** Highest `field` (a height) among the items of `data.list`, or null. */
export function highestIn(data: unknown, field: string): number | null {
  const list = obj(data)?.['list'];
  if (!Array.isArray(list)) return null;
  let best: number | null = null;
  for (const item of list) {
    const h = height(obj(item)?.[field]);
    if (h !== null && (best === null || h > best)) best = h;
  }
  return best;
}
