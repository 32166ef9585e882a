/**
 * The part of the fleet's record of touched sets a replica can use (see
 * TagClock.join): the sets of the newest heights up to `top` without a gap.
 * Before the clock has a set (`known` null), the newest must be no more than
 * JOIN_GAP below `top` (the believed head): the reader then reads the blocks
 * between, as it reads any gap. Afterwards, the range must meet `known` (the
 * lowest height whose entries the clock can judge), so that together they
 * cover every block from the record's first.
 */
import type { TouchedSet } from '../chain/touched.js';

/** Blocks between the record's newest and the believed head read after joining: the reader's own gap bound. */
const JOIN_GAP = 64;

export interface Joinable {
  /** Lowest and highest height covered. */
  from: number;
  to: number;
  /** The sets of [from, to], by height (every set of a height). */
  sets: readonly TouchedSet[];
}

/** `sets` sorted by height; `top`: the highest height to use (null: none known). */
export function joinable(sets: readonly TouchedSet[], top: number | null, known: number | null): Joinable | null {
  if (top === null) return null;
  let end = sets.length;
  while (end > 0 && sets[end - 1]!.height > top) end--;
  if (end === 0) return null;
  const to = sets[end - 1]!.height;
  let start = end - 1;
  let from = to;
  while (start > 0 && sets[start - 1]!.height >= from - 1) {
    start--;
    from = sets[start]!.height;
  }
  if (known === null ? to < top - JOIN_GAP : to < known) return null;
  return { from, to, sets: sets.slice(start, end) };
}
