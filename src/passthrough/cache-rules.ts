/**
 * What of a passthrough answer may be stored, and for how long: the shared
 * cache rules of RFC 9111 on the backend's own headers (as nginx and Varnish
 * apply them), narrowed by the proxy's own, as named pure predicates.
 *
 * - A request bypasses the cache when it is not GET or HEAD, or carries
 *   credentials (Authorization, Cookie: what Varnish's builtin.vcl bypasses)
 *   or a Range: nothing a client sends may change what another receives.
 * - Stored: 200 and 404 only, never `no-store`, `private` or an answer that
 *   sets a cookie (whatever the policy), nor one whose Vary names anything
 *   but Accept-Encoding (the proxy forwards no negotiation headers, so such
 *   an answer could differ between clients).
 * - Freshness, without a policy: `s-maxage`, else `max-age`, else `Expires`
 *   minus `Date`, less the backend's `Age`; none (or `no-cache`): not
 *   stored. A policy's duration or `head` replaces it.
 * - Stale windows: the backend's `stale-while-revalidate` and
 *   `stale-if-error` (RFC 5861) when given, else a duration policy's own
 *   duration while revalidating and a few minutes on errors; none after
 *   `must-revalidate`/`proxy-revalidate`. A 404 is never served stale.
 */
import type { PassCachePolicy } from '../config/types.js';

/** What `head` keeps at most when no block comes. */
export const PASS_HEAD_MAX_MS = 60_000;
/** The longest freshness (and stale window) taken from a backend's headers (keeps purge marks and memory bounded). */
export const PASS_MAX_FRESH_MS = 60 * 60_000;
/** Stale-if-error of a stored answer whose backend said nothing about it. */
export const PASS_DEFAULT_SIE_MS = 5 * 60_000;

/** Header values as Node parses them (lower-cased names). */
export type HeaderBag = Readonly<Record<string, string | string[] | number | undefined>>;

const STORED_STATUSES: ReadonlySet<number> = new Set([200, 404]);

function text(v: HeaderBag[string]): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

/** Cache-Control directives, lower-cased names; a directive without a value maps to ''. */
export function directivesOf(value: HeaderBag[string]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  const s = text(value);
  if (s === undefined) return out;
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === '') continue;
    const v =
      eq < 0
        ? ''
        : part
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1');
    if (!out.has(name)) out.set(name, v);
  }
  return out;
}

/** Seconds of a delta-seconds directive (`max-age=60`), or null when absent or malformed. */
function seconds(d: ReadonlyMap<string, string>, name: string): number | null {
  const v = d.get(name);
  return v !== undefined && /^\d{1,10}$/.test(v) ? Number(v) : null;
}

/** A request that must go to the backend as it is, uncached. */
export function requestBypasses(method: string, headers: HeaderBag): boolean {
  if (method !== 'GET' && method !== 'HEAD') return true;
  return headers['authorization'] !== undefined || headers['cookie'] !== undefined || headers['range'] !== undefined;
}

/** Vary names nothing but Accept-Encoding (the proxy keeps its own encodings). */
export function varyAllowsStoring(headers: HeaderBag): boolean {
  const v = text(headers['vary']);
  if (v === undefined) return true;
  return v.split(',').every((t) => {
    const n = t.trim().toLowerCase();
    return n === '' || n === 'accept-encoding';
  });
}

/** What no policy overrides: no-store, private, a cookie set, a status or Vary the cache cannot keep. */
export function neverStored(status: number, headers: HeaderBag): boolean {
  if (!STORED_STATUSES.has(status)) return true;
  const d = directivesOf(headers['cache-control']);
  if (d.has('no-store') || d.has('private')) return true;
  if (headers['set-cookie'] !== undefined) return true;
  return !varyAllowsStoring(headers);
}

/** Freshness (ms) the backend's headers give a shared cache at `now`, or null when they give none. */
export function backendFreshMs(headers: HeaderBag, now: number): number | null {
  const d = directivesOf(headers['cache-control']);
  if (d.has('no-cache')) return null;
  let lifetime = seconds(d, 's-maxage') ?? seconds(d, 'max-age');
  if (lifetime === null) {
    const expires = text(headers['expires']);
    if (expires === undefined) return null;
    const at = Date.parse(expires);
    const date = Date.parse(text(headers['date']) ?? '');
    // An invalid Expires (`0`, `-1`) means already expired.
    lifetime = Number.isNaN(at) ? 0 : Math.max(0, (at - (Number.isNaN(date) ? now : date)) / 1000);
  }
  const age = Number(text(headers['age']) ?? '0');
  const fresh = (lifetime - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000;
  return fresh > 0 ? Math.min(fresh, PASS_MAX_FRESH_MS) : null;
}

/** How a stored answer is kept. */
export interface PassTerms {
  ttlMs: number;
  swrMs: number;
  sieMs: number;
  /** Stale once the proxy sees a block after the one it was fetched at (`head`). */
  headDependent: boolean;
  /** A 404: fresh or gone, never served stale. */
  negative: boolean;
}

/**
 * The terms an answer is stored with, or null when it is not stored.
 * `policy` undefined: the backend's headers alone decide.
 */
export function passTerms(
  status: number,
  headers: HeaderBag,
  policy: PassCachePolicy | undefined,
  now: number,
): PassTerms | null {
  if (policy?.kind === 'off' || neverStored(status, headers)) return null;
  const ttlMs =
    policy === undefined ? backendFreshMs(headers, now) : policy.kind === 'head' ? PASS_HEAD_MAX_MS : policy.ms;
  if (ttlMs === null) return null;
  const d = directivesOf(headers['cache-control']);
  const negative = status !== 200;
  if (d.has('must-revalidate') || d.has('proxy-revalidate'))
    return { ttlMs, swrMs: 0, sieMs: 0, headDependent: policy?.kind === 'head', negative };
  const swr = seconds(d, 'stale-while-revalidate');
  const sie = seconds(d, 'stale-if-error');
  return {
    ttlMs,
    swrMs: swr !== null ? Math.min(swr * 1000, PASS_MAX_FRESH_MS) : policy?.kind === 'ttl' ? policy.ms : 0,
    sieMs: sie !== null ? Math.min(sie * 1000, PASS_MAX_FRESH_MS) : PASS_DEFAULT_SIE_MS,
    headDependent: policy?.kind === 'head',
    negative,
  };
}
