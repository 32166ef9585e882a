/**
 * The purge marks as part of the one judge every lookup asks (`TagJudge`,
 * src/cache/entry.ts): an entry a purge reached is not fresh. While there is
 * no mark, and for every entry created after the newest one, it costs one
 * comparison. A composed page made before a purge is made again (from its
 * parts, which are judged themselves).
 */
import type { ChainHeights, TagJudge } from '../cache/entry.js';
import type { CacheEntry } from '../cache/types.js';
import type { PurgeMarks } from './marks.js';

/** `base` (precise invalidation; null: none) with the purge marks in front. */
export function withPurges(marks: PurgeMarks, base: TagJudge | null): TagJudge {
  const purged = (entry: CacheEntry): boolean =>
    entry.createdAt <= marks.newest && (entry.composed !== undefined || marks.verdict(entry) !== null);
  if (base === null) return { stale: purged };
  return { stale: (entry: CacheEntry, chain: ChainHeights) => purged(entry) || base.stale(entry, chain) };
}
