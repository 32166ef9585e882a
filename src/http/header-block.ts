/**
 * The header list of a fresh 200 hit, built once per stored payload and
 * re-stamped only when a value in it changes: Age and max-age move once a
 * second, X-Chain-Head once a block. Everything else in it depends on the
 * entry and the payload alone (see deliver.ts for the meaning of each header).
 * Keyed weakly by the payload object, so it lives exactly as long as the
 * memory tier holds that payload (a stamped entry gets a new payload per
 * second and so a new block).
 */
import type { Payload } from '../cache/memory-store.js';
import type { CacheEntry } from '../cache/types.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'X-Cache, Age, ETag, X-Chain-Head, X-Request-Id, Retry-After, X-Credits-Remaining, X-Chainproxy-Upstream',
} as const;

interface Block {
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
export function tagHeaders(tagHeader: string): string[] {
  return ['cache-tag', tagHeader, 'surrogate-key', tagHeader.replaceAll(',', ' ')];
}

/**
 * Seconds a downstream cache may keep `entry` at `now`: its remaining
 * freshness, at most its endpoint's own TTL when tags keep it longer here
 * (a browser or CDN cannot see the blocks that invalidate it).
 */
export function downstreamMaxAge(entry: CacheEntry, now: number): number {
  if (entry.freshUntil <= now) return 0;
  const cap = entry.deps?.clientMaxMs;
  return Math.ceil((cap !== undefined && entry.freshUntil - now > cap ? cap : entry.freshUntil - now) / 1000);
}

/** Cache-Control of a fresh answer (immutable: final content, e.g. a page of final parts). */
function cacheControl(entry: CacheEntry, maxAge: number): string {
  return entry.immutable === true ? `public, max-age=${maxAge}, immutable` : `public, max-age=${maxAge}`;
}

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
    JSON_TYPE,
    'x-cache',
    'HIT',
    'age',
    String(age),
    'cache-control',
    cacheControl(entry, maxAge),
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
  // No chain head known: drop the pair (its slot is then never re-stamped).
  if (head === null) headers.splice(HEAD - 1, 2);
  return { age, maxAge, head, headers };
}

/**
 * Headers of a fresh 200 hit sending `payload` at `now` (the returned array is
 * shared: do not modify). `answer`: the pairs every API answer carries (the
 * same array for the life of the proxy).
 */
export function hitHeaders(
  entry: CacheEntry,
  payload: Payload,
  now: number,
  head: number | null,
  answer: readonly string[],
): string[] {
  const age = now > entry.createdAt ? Math.floor((now - entry.createdAt) / 1000) : 0;
  const maxAge = downstreamMaxAge(entry, now);
  let b = blocks.get(payload);
  if (b === undefined || (b.head === null) !== (head === null)) {
    b = build(entry, payload, age, maxAge, head, answer);
    blocks.set(payload, b);
    return b.headers;
  }
  if (b.age !== age) {
    b.age = age;
    b.headers[AGE] = String(age);
  }
  if (b.maxAge !== maxAge) {
    b.maxAge = maxAge;
    b.headers[CACHE_CONTROL] = cacheControl(entry, maxAge);
  }
  if (b.head !== head) {
    b.head = head;
    b.headers[HEAD] = String(head);
  }
  return b.headers;
}
