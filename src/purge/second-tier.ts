/**
 * The shared tier as the resolver reads it once purges are marked: an entry a
 * hard purge reached is a miss (never served, not even if the refetch fails);
 * one a soft purge reached comes back expired at the purge (served stale while
 * it is fetched again). Nothing is rewritten in Redis: the marks decide on
 * every read, on every replica.
 */
import { expiredAt } from '../cache/lifetime.js';
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { PurgeMarks } from './marks.js';

/**
 * `entry` expired at `at`: no longer fresh, servable stale in its
 * own windows, never promoted to its final TTL without a refetch.
 */
export function softened(entry: CacheEntry, at: number): CacheEntry {
  return expiredAt(entry, at);
}

export function purgedSecondTier(store: CacheStore, marks: PurgeMarks): CacheStore {
  return {
    name: store.name,
    async get(key) {
      const entry = await store.get(key);
      if (entry === undefined || entry.createdAt > marks.newest) return entry;
      const verdict = marks.verdict(entry);
      if (verdict === null) return entry;
      return verdict.mode === 'hard' ? undefined : softened(entry, verdict.at);
    },
    set: (entry) => store.set(entry),
    delete: (key) => store.delete(key),
  };
}
