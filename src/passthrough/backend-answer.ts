/**
 * What a backend answered, when it is not an answer the cache keeps as its
 * own: the headers relayed with it, and the two outcomes the route handles
 * itself (a 5xx, served stale when there is a copy, else relayed; a body
 * over the bound, streamed instead).
 */
import type { Readable } from 'node:stream';
import { ProxyError } from '../errors/catalog.js';
import type { CacheEntry } from '../cache/types.js';
import type { HeaderBag } from './cache-rules.js';

/**
 * Headers the proxy sets itself on every passthrough answer from the cache
 * path, hop-by-hop ones, and Set-Cookie (never relayed): none is relayed.
 */
const OWN: ReadonlySet<string> = new Set([
  'age',
  'cache-control',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'date',
  'etag',
  'expires',
  'keep-alive',
  'proxy-authenticate',
  'proxy-connection',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'vary',
  'x-cache',
]);

function ownHeader(name: string, named: ReadonlySet<string>): boolean {
  return OWN.has(name) || name.startsWith('access-control-') || named.has(name);
}

/** The backend's headers relayed with an answer the cache does not keep, as flat pairs. */
export function relayedHeaders(headers: HeaderBag): string[] {
  const connection = headers['connection'];
  const named = new Set(
    (Array.isArray(connection) ? connection.join(',') : String(connection ?? ''))
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ''),
  );
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ownHeader(name, named)) continue;
    if (Array.isArray(value)) for (const v of value) out.push(name, v);
    else out.push(name, String(value));
  }
  return out;
}

/** A backend's 5xx: stale when the cache holds a copy, else relayed as it is (the entry, not stored). */
export class BackendFailed extends ProxyError {
  readonly entry: CacheEntry;

  constructor(entry: CacheEntry) {
    super('UPSTREAM_ERROR', undefined, { detail: `backend answered ${entry.status}`, upstreamStatus: entry.status });
    this.entry = entry;
  }
}

/**
 * An answer the cache does not keep (its headers say so): streamed to the
 * client that led the fetch, as it arrives; a client that joined the fetch
 * asks the backend itself. Never replaced by a stale copy.
 */
export class Unstored extends ProxyError {
  readonly backendStatus: number;
  readonly headers: HeaderBag;
  #body: Readable | null;

  constructor(status: number, headers: HeaderBag, body: Readable) {
    super('UPSTREAM_ERROR', undefined, { detail: 'passthrough answer not stored', upstreamStatus: status });
    this.backendStatus = status;
    this.headers = headers;
    this.#body = body;
  }

  /** The body, to the first caller only (null after). */
  take(): Readable | null {
    const b = this.#body;
    this.#body = null;
    return b;
  }
}

/** A body over PASSTHROUGH_CACHE_MAX_BODY_BYTES: the route streams it instead, uncached. */
export class TooBig extends ProxyError {
  constructor() {
    super('UPSTREAM_BAD_RESPONSE', undefined, { detail: 'passthrough body over the cache bound' });
  }
}
