/**
 * block/max never goes backwards for clients, whatever the source of the
 * answer (memory, a Redis hit, a fleet follower's fill, a fresh fetch): the
 * resolver passes every block/max answer through this invariant, which
 * remembers the highest one served and hands that back in place of a lower
 * one. Following every upstream down (tracker `rebase`) is the one way the
 * floor is lowered.
 */
import type { CacheEntry } from '../cache/types.js';
import type { ChainTracker } from './tracker.js';

/** Answer invariant of one endpoint. */
export interface AnswerInvariant {
  /** The entry to serve in place of `entry` (itself when the invariant holds). */
  check(entry: CacheEntry): CacheEntry;
  /** What to serve when no answer could be had (every fetched answer broke the invariant), or null. */
  last(): CacheEntry | null;
}

/** `data.height` of a block/max body, or null (error bodies, anything odd). */
export function blockMaxHeightOf(body: Buffer): number | null {
  try {
    const j = JSON.parse(body.toString('utf8')) as { code?: unknown; data?: { height?: unknown } | null };
    const h = j.code === 0 ? j.data?.height : undefined;
    return typeof h === 'number' && Number.isFinite(h) ? Math.trunc(h) : null;
  } catch {
    return null;
  }
}

/**
 * `clock` is the one entries are stamped with (createdAt): after a rebase to
 * height r, entries made before it and above r are served while they last but
 * never become the floor again.
 */
export function blockMaxInvariant(tracker: ChainTracker, clock: () => number): AnswerInvariant {
  const heights = new WeakMap<CacheEntry, number | null>();
  let best: CacheEntry | null = null;
  let bestHeight = -1;
  let rebase: { at: number; height: number } | null = null;
  tracker.on('rebase', (height: number) => {
    rebase = { at: clock(), height };
    if (bestHeight > height) {
      best = null;
      bestHeight = -1;
    }
  });
  const check = (entry: CacheEntry): CacheEntry => {
    if (entry.negative || entry.status !== 200) return entry;
    let h = heights.get(entry);
    if (h === undefined) {
      h = blockMaxHeightOf(entry.body);
      heights.set(entry, h);
    }
    if (h === null) return entry;
    if (rebase !== null && h > rebase.height && entry.createdAt <= rebase.at) return best ?? entry;
    if (h >= bestHeight) {
      best = entry;
      bestHeight = h;
      return entry;
    }
    return best ?? entry;
  };
  return { check, last: () => best };
}
