/**
 * Cache entries and their freshness: the heart of the cache semantics.
 *
 * Timeline of an entry fetched at `createdAt` (all absolute ms epochs):
 *
 *   createdAt ── freshUntil ── swrUntil ─────────── sieUntil
 *   |  fresh    |  stale        |  error-only        |  dead
 *
 * - fresh:      served as a HIT, no upstream work.
 * - stale:      served at once (STALE) while one background refresh runs
 *               (stale-while-revalidate).
 * - error-only: served only if the refresh fails, times out or answers garbage
 *               (stale-if-error); otherwise the client waits for the upstream.
 * - dead:       never served; the stores drop entries at sieUntil.
 *
 * Two more rules cut across the timeline:
 * - head invalidation: a `headDependent` entry (a list whose first page moves
 *   with every block) is no longer fresh nor stale once the best known chain
 *   head is above the head it was fetched at; it stays usable as error-only.
 * - negative entries (an upstream not-found / client-error envelope kept
 *   briefly) are fresh or dead: an error is never served as stale.
 *
 * Finality promotion: content tied to a block that was not final yet
 * (`finalAt`) becomes immutable once the chain's final height reaches that
 * block; `promoteIfFinal` then extends the entry to the endpoint's final TTL.
 * Every window is laid out and moved by the lifetime module (lifetime.ts).
 */
import { createHash } from 'node:crypto';
import { windowsOf } from './lifetime.js';
import { ownedBytes } from './owned.js';
import type { Stamp } from '../transform/stamps.js';
import type { CacheEntry, EntryDeps } from './types.js';

export type EntryState = 'fresh' | 'stale' | 'error-only' | 'dead';

/** What freshness needs to know about the chain (ChainTracker satisfies it). */
export interface ChainHeights {
  bestHead(): number | null;
  finalHeight(): number | null;
}

export interface EntryParams {
  key: string;
  status: number;
  body: Buffer;
  /** ms epoch when the upstream answered. */
  createdAt: number;
  /** Freshness after createdAt. */
  ttlMs: number;
  /** Stale-while-revalidate window after freshUntil. */
  swrMs: number;
  /** Stale-if-error window after freshUntil (never shorter than the swr window). */
  sieMs: number;
  head: number | null;
  headDependent: boolean;
  finalAt: number | null;
  negative: boolean;
  stamps: readonly Stamp[];
  deps?: EntryDeps;
  tagHeader?: string;
}

/**
 * Weak validator of a body: `W/"<base64url sha1>"` of its bytes with the
 * volatile stamps left out (`stamps` sorted by start, as findStamps returns
 * them). Computed once at store time: it stays the same across re-stamping on
 * hits and across refetches whose content changed only in its stamps (bodies
 * differing only there are semantically equivalent). Also the content hash
 * that tells an unchanged refetch.
 */
export function computeEtag(body: Buffer, stamps: readonly Stamp[]): string {
  const hash = createHash('sha1');
  let at = 0;
  for (const s of stamps) {
    if (s.start < at || s.end > body.length) continue;
    hash.update(body.subarray(at, s.start));
    at = s.end;
  }
  hash.update(body.subarray(at));
  return `W/"${hash.digest('base64url')}"`;
}

/**
 * Another replica's entry takes the place of this replica's copy only when
 * made later (a copy is never replaced by itself or an older one).
 */
export function takesOver(own: CacheEntry | undefined, incoming: CacheEntry): boolean {
  return own === undefined || incoming.createdAt > own.createdAt;
}

/** Same answer: the same status and the same content hash without stamps (the ETag). */
export function sameContent(a: CacheEntry, b: CacheEntry): boolean {
  return a.status === b.status && a.etag === b.etag;
}

/**
 * Builds an entry, its windows laid out from the durations (lifetime.ts
 * `windowsOf`). The body is kept in bytes of its own (owned.ts), never as a
 * slice pinning a larger buffer.
 */
export function createEntry(p: EntryParams): CacheEntry {
  const body = ownedBytes(p.body);
  return {
    key: p.key,
    status: p.status,
    body,
    etag: computeEtag(body, p.stamps),
    ...windowsOf(p.createdAt, p),
    head: p.head,
    headDependent: p.headDependent,
    finalAt: p.finalAt,
    negative: p.negative,
    stamps: p.stamps,
    ...(p.deps !== undefined ? { deps: p.deps } : {}),
    ...(p.tagHeader !== undefined ? { tagHeader: p.tagHeader } : {}),
  };
}

/** Whether the chain head moved past the head a head-dependent entry was fetched at. */
function headInvalidated(entry: CacheEntry, chain: ChainHeights): boolean {
  if (!entry.headDependent || entry.head === null) return false;
  const best = chain.bestHead();
  return best !== null && best > entry.head;
}

/** Precise invalidation's verdict (src/invalidation/clock.ts): a touched set named one of the entry's tags. */
export interface TagJudge {
  stale(entry: CacheEntry, chain: ChainHeights): boolean;
}

/** Where `entry` stands at `now` (see the timeline above); `tags` null: no precise invalidation. */
export function entryState(
  entry: CacheEntry,
  now: number,
  chain: ChainHeights,
  tags: TagJudge | null = null,
): EntryState {
  const invalidated = headInvalidated(entry, chain) || (tags !== null && tags.stale(entry, chain));
  if (now < entry.freshUntil && !invalidated) return 'fresh';
  if (entry.negative) return 'dead';
  if (now < entry.swrUntil && !invalidated) return 'stale';
  if (now < entry.sieUntil) return 'error-only';
  return 'dead';
}
