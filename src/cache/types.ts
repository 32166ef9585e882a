/**
 * The cache store contract. Every tier (memory, Redis) implements `CacheStore`
 * and passes the one shared contract test (test/cache/store-contract.ts).
 */
import type { CanonicalRequest } from '../catalogue/types.js';
import type { Stamp } from '../transform/stamps.js';

/** What decides when a tag-kept entry changes (stored on the entry). */
export interface EntryDeps {
  /** `address:<id>` (addresses and contracts), `token:<name>`, `contract:deployed`, `pending`, `day`. */
  readonly tags: readonly string[];
  /** Height of the non-final block the answer is about: stale once that height is final (or rewritten). */
  readonly watchFinal: number | null;
  /** Stale once the best head reaches this height (the end of the NAX stage the answer describes); absent: none. */
  readonly watchHead?: number;
  /** Longest max-age told to downstream caches, which cannot see tags: the endpoint's own TTL (absent: no cap). */
  readonly clientMaxMs?: number;
}

export interface CacheEntry {
  key: string;
  /** HTTP status to answer with (200, or the upstream's 4xx for negative entries). */
  status: number;
  /** Ready-to-send identity bytes (links already rewritten, envelope normalized). */
  body: Buffer;
  /** Weak validator of the content, stable across re-stamping: W/"...". */
  etag: string;
  /** ms epoch when the upstream answered (base of the Age header). */
  createdAt: number;
  /** Fresh until (ms epoch). */
  freshUntil: number;
  /** Servable stale-while-revalidate until (ms epoch), >= freshUntil. */
  swrUntil: number;
  /** Servable stale-if-error until (ms epoch), >= swrUntil. The store drops it after this. */
  sieUntil: number;
  /** Best chain head when the fetch started (null if unknown). */
  head: number | null;
  /** Stale once the best head is above `head`. */
  headDependent: boolean;
  /** May be kept for the endpoint's finalTtlMs once the final height reaches this. */
  finalAt: number | null;
  /** An upstream error envelope kept briefly (never served as stale). */
  negative: boolean;
  stamps: readonly Stamp[];
  /** Precise invalidation: the tags that keep it fresh (absent: the endpoint's own rule). */
  deps?: EntryDeps;
  /** Its dependency tags, comma-separated, for the Cache-Tag header (CACHE_TAG_HEADERS; absent: none). */
  tagHeader?: string;
  /** Content that can no longer change: `Cache-Control: immutable` while fresh (absent: false). */
  immutable?: true;
  /** Content-Type of a passthrough backend's answer (absent: the API's JSON). */
  contentType?: string;
  /** A passthrough answer not stored: the backend's other headers relayed with it, as flat pairs (absent: none). */
  relayed?: readonly string[];
  /** A composed page (src/pages): what it was made of (absent: an endpoint's answer). */
  composed?: Composed;
}

/** Each part of a composed page with its cache result (HIT, MISS, STALE, BYPASS, ERROR, SKIPPED). */
export interface PartSummary {
  name: string;
  cache: string;
}

export interface Composed {
  parts: readonly PartSummary[];
  /** Requests of the parts served stale: the page is sent as STALE, and recomposed once one is fresh again. */
  staleParts: readonly CanonicalRequest[];
}

export interface CacheStore {
  readonly name: string;
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores until entry.sieUntil. */
  set(entry: CacheEntry): Promise<void>;
  delete(key: string): Promise<void>;
  close?(): Promise<void>;
}

export type CacheResult = 'HIT' | 'MISS' | 'STALE' | 'BYPASS';
export type Encoding = 'br' | 'gzip' | 'identity';
