/**
 * The one header builder of answers: Cache-Control (formatted by
 * `cacheControl` alone), Age, ETag, X-Cache, X-Chain-Head, CORS, Vary,
 * Content-Type, the tag headers, X-Request-Id. Two lists: the header block of a fresh 200
 * hit, built once per stored payload and re-stamped only when a value in it
 * changes (Age and max-age move once a second, X-Chain-Head once a block;
 * everything else depends on the entry and the payload alone; keyed weakly by
 * the payload object, so it lives exactly as long as the memory tier holds
 * that payload, and a stamped entry gets a new payload per second and so a new
 * block), and the list of any other resolution, built per answer.
 */
import type { Payload } from '../cache/memory-store.js';
import type { CacheEntry, CacheResult } from '../cache/types.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'X-Cache, Age, ETag, X-Chain-Head, X-Request-Id, Retry-After, X-Credits-Remaining, X-Chainproxy-Upstream',
} as const;

interface Block {
  /** Index of the X-Request-Id value, stamped per answer. */
  idSlot: number;
  age: number;
  maxAge: number;
  head: number | null;
  headers: string[];
}

const AGE = 5;
const CACHE_CONTROL = 7;
const HEAD = 17;

const blocks = new WeakMap<Payload, Block>();

/** Cache-Tag (comma-separated) and Surrogate-Key (space-separated) of an entry's tags. */
function tagHeaders(tagHeader: string): string[] {
  return ['cache-tag', tagHeader, 'surrogate-key', tagHeader.replaceAll(',', ' ')];
}

/**
 * Seconds a downstream cache may keep `entry` at `now`: its remaining
 * freshness, at most its endpoint's own TTL when tags keep it longer here
 * (a browser or CDN cannot see the blocks that invalidate it).
 */
function downstreamMaxAge(entry: CacheEntry, now: number): number {
  if (entry.freshUntil <= now) return 0;
  const cap = entry.deps?.clientMaxMs;
  return Math.ceil((cap !== undefined && entry.freshUntil - now > cap ? cap : entry.freshUntil - now) / 1000);
}

/**
 * The one Cache-Control formatter. `maxAge` null: not to be stored
 * (`no-store`, `private, no-store` for answers only operators get); else
 * `public` (or `private`) with that max-age, `immutable` for final content
 * (e.g. a page of final parts).
 */
export function cacheControl(maxAge: number | null, immutable = false, scope: 'public' | 'private' = 'public'): string {
  if (maxAge === null) return scope === 'private' ? 'private, no-store' : 'no-store';
  return immutable ? `${scope}, max-age=${maxAge}, immutable` : `${scope}, max-age=${maxAge}`;
}

/** Cache-Control of anything the proxy makes now and never stores (envelopes, operator pages). */
export const NO_STORE = cacheControl(null);

function build(
  entry: CacheEntry,
  payload: Payload,
  age: number,
  maxAge: number,
  head: number | null,
  answer: readonly string[],
): Block {
  const headers = [
    'content-type',
    entry.contentType ?? JSON_TYPE,
    'x-cache',
    'HIT',
    'age',
    String(age),
    'cache-control',
    cacheControl(maxAge, entry.immutable === true),
    'etag',
    entry.etag,
    'vary',
    'Accept-Encoding',
    'access-control-allow-origin',
    CORS_HEADERS['access-control-allow-origin'],
    'access-control-expose-headers',
    CORS_HEADERS['access-control-expose-headers'],
    'x-chain-head',
    head === null ? '' : String(head),
  ];
  if (payload.encoding !== 'identity') headers.push('content-encoding', payload.encoding);
  headers.push('content-length', String(payload.body.length), ...answer);
  if (entry.tagHeader !== undefined) headers.push(...tagHeaders(entry.tagHeader));
  headers.push('x-request-id', '');
  // No chain head known: drop the pair (its slot is then never re-stamped).
  if (head === null) headers.splice(HEAD - 1, 2);
  return { idSlot: headers.length - 1, age, maxAge, head, headers };
}

/**
 * Headers of a fresh 200 hit sending `payload` at `now` with request id `id`
 * (the returned array is shared and re-stamped by the next call: write it
 * before anything else runs, and do not modify it). `answer`: the pairs every
 * API answer carries (the same array for the life of the proxy).
 */
export function hitHeaders(
  entry: CacheEntry,
  payload: Payload,
  now: number,
  head: number | null,
  answer: readonly string[],
  id: string,
): string[] {
  const age = now > entry.createdAt ? Math.floor((now - entry.createdAt) / 1000) : 0;
  const maxAge = downstreamMaxAge(entry, now);
  let b = blocks.get(payload);
  if (b === undefined || (b.head === null) !== (head === null)) {
    b = build(entry, payload, age, maxAge, head, answer);
    blocks.set(payload, b);
  }
  b.headers[b.idSlot] = id;
  if (b.age !== age) {
    b.age = age;
    b.headers[AGE] = String(age);
  }
  if (b.maxAge !== maxAge) {
    b.maxAge = maxAge;
    b.headers[CACHE_CONTROL] = cacheControl(maxAge, entry.immutable === true);
  }
  if (b.head !== head) {
    b.head = head;
    b.headers[HEAD] = String(head);
  }
  return b.headers;
}

/**
 * Headers of any other resolution (a miss, a stale answer, a bypass, a hit
 * with headers set before, an error status, a 304) without Content-Encoding
 * and Content-Length, which depend on the body chosen: a fresh list the
 * caller completes. Fresh (HIT, MISS): the remaining freshness as max-age;
 * STALE: max-age=0; BYPASS: no-store.
 */
export function resolutionHeaders(
  result: CacheResult,
  entry: CacheEntry,
  now: number,
  head: number | null,
  answer: readonly string[],
  id: string,
): string[] {
  const fresh = result === 'HIT' || result === 'MISS';
  const headers: string[] = [
    'content-type',
    entry.contentType ?? JSON_TYPE,
    'x-cache',
    result,
    'age',
    String(Math.max(0, Math.floor((now - entry.createdAt) / 1000))),
    'cache-control',
    result === 'BYPASS'
      ? NO_STORE
      : cacheControl(fresh ? downstreamMaxAge(entry, now) : 0, fresh && entry.immutable === true),
    'etag',
    entry.etag,
    'vary',
    'Accept-Encoding',
    'access-control-allow-origin',
    CORS_HEADERS['access-control-allow-origin'],
    'access-control-expose-headers',
    CORS_HEADERS['access-control-expose-headers'],
    ...answer,
    'x-request-id',
    id,
  ];
  if (head !== null) headers.push('x-chain-head', String(head));
  if (entry.tagHeader !== undefined) headers.push(...tagHeaders(entry.tagHeader));
  if (entry.relayed !== undefined) headers.push(...entry.relayed);
  return headers;
}
