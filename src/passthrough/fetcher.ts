/**
 * The passthrough fetcher of the Resolver (pipeline/resolver.ts `Fetcher`):
 * one GET to the route's backend, its body read up to the bound and decoded
 * (the proxy makes its own encodings), made into an entry kept on the terms
 * cache-rules.ts gives. A HEAD is fetched as a GET, so both share one
 * entry. An answer its headers keep from the cache, a 5xx and a body over
 * the bound are errors the route handles (backend-answer.ts: streamed,
 * stale or relayed, streamed); network failures and timeouts are the
 * catalogue's 502/504.
 */
import type { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Pool } from 'undici';
import type { CacheEntry } from '../cache/types.js';
import { createEntry } from '../cache/entry.js';
import type { ChainView } from '../chain/types.js';
import { ProxyError, RETRY_AFTER_503_SECONDS } from '../errors/catalog.js';
import type { Fetched } from '../invalidation/own-reads.js';
import type { Fetcher } from '../pipeline/resolver.js';
import { BackendFailed, relayedHeaders, TooBig, Unstored } from './backend-answer.js';
import { passTerms, type HeaderBag } from './cache-rules.js';
import type { PassRequest } from './request.js';

/** PASSTHROUGH_TIMEOUT_MS and PASSTHROUGH_CACHE_MAX_BODY_BYTES as last reloaded: read at each request. */
export interface PassLimits {
  /** Time to the response headers, and the longest pause in the body. */
  timeoutMs: number;
  maxBodyBytes: number;
}

export interface PassFetcherDeps {
  chain: ChainView;
  clock: () => number;
  limits: Readonly<PassLimits>;
  connectTimeoutMs: number;
  connections: number;
  /** A body over the bound (the route streams it instead). */
  tooBig: (prefix: string) => void;
}

const KNOWN_ENCODINGS: ReadonlySet<string> = new Set(['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br']);

/** `raw` (in one of KNOWN_ENCODINGS) in identity; TooBig when it inflates past `max`. */
function decode(raw: Buffer, encoding: string, max: number): Buffer {
  const opts = { maxOutputLength: max + 1 };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(raw, opts);
    if (encoding === 'deflate') return inflateSync(raw, opts);
    if (encoding === 'br') return brotliDecompressSync(raw, opts);
    return raw;
  } catch (err) {
    if (err instanceof RangeError) throw new TooBig();
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: `undecodable ${encoding} body` });
  }
}

/** What a relayed 5xx keeps of the backend's headers (a 503 always has a Retry-After). */
function failureHeaders(status: number, headers: HeaderBag): string[] {
  const out = relayedHeaders(headers);
  if (status === 503 && headers['retry-after'] === undefined) out.push('retry-after', RETRY_AFTER_503_SECONDS);
  return out;
}

const one = (v: HeaderBag[string]): string | undefined => (Array.isArray(v) ? v[0] : v?.toString());

export class PassFetcher implements Fetcher<PassRequest> {
  readonly #d: PassFetcherDeps;
  readonly #pools = new Map<string, Pool>();

  constructor(deps: PassFetcherDeps) {
    this.#d = deps;
  }

  #pool(origin: string): Pool {
    let p = this.#pools.get(origin);
    if (p === undefined) {
      const d = this.#d;
      // The timeouts are given with each request (a reload may change them).
      p = new Pool(origin, { connections: d.connections, pipelining: 1, connect: { timeout: d.connectTimeoutMs } });
      this.#pools.set(origin, p);
    }
    return p;
  }

  async fetch(req: PassRequest, signal?: AbortSignal): Promise<Fetched> {
    const { chain, clock, limits } = this.#d;
    const { maxBodyBytes, timeoutMs } = limits;
    const head = chain.bestHead();
    const started = performance.now();
    const res = await this.#pool(req.route.origin).request({
      method: 'GET',
      path: req.path,
      headers: { ...req.forward, 'accept-encoding': 'identity' },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(signal !== undefined ? { signal } : {}),
    });
    const headers = res.headers as HeaderBag;
    const status = res.statusCode;
    const encoding = one(headers['content-encoding'])?.trim().toLowerCase() ?? '';
    const terms = KNOWN_ENCODINGS.has(encoding) ? passTerms(status, headers, req.route.policy, clock()) : null;
    if (terms === null && status < 500) throw new Unstored(status, headers, res.body);
    try {
      const raw = await readBounded(res.body, Number(one(headers['content-length']) ?? NaN), maxBodyBytes);
      const body = decode(raw, encoding, maxBodyBytes);
      if (body.length > maxBodyBytes) throw new TooBig();
      const contentType = one(headers['content-type']);
      const made = createEntry({
        key: req.key,
        status,
        body,
        createdAt: clock(),
        ttlMs: terms?.ttlMs ?? 0,
        swrMs: terms?.swrMs ?? 0,
        sieMs: terms?.sieMs ?? 0,
        head,
        headDependent: terms?.headDependent ?? false,
        finalAt: null,
        negative: terms?.negative ?? true,
        stamps: [],
      });
      const entry: CacheEntry = { ...made, ...(contentType !== undefined ? { contentType } : {}) };
      // A 5xx: served stale when there is a copy, else relayed (not stored).
      if (status >= 500) throw new BackendFailed({ ...entry, relayed: failureHeaders(status, headers) });
      return {
        entry,
        cacheable: true,
        upstream: req.route.origin,
        upstreamMs: performance.now() - started,
        facts: { head: null, shown: true, final: null, source: '' },
      };
    } catch (err) {
      if (err instanceof TooBig) this.#d.tooBig(req.route.prefix);
      throw err;
    }
  }

  finalShown(): null {
    return null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
    this.#pools.clear();
  }
}

/** Drops a body not read to its end (its abort is the expected outcome, not an error to crash on). */
function discard(body: Readable): void {
  body.once('error', () => undefined);
  body.destroy();
}

/** The whole body, or TooBig as soon as it (or its announced length) passes `max`. */
async function readBounded(body: Readable, length: number, max: number): Promise<Buffer> {
  if (Number.isFinite(length) && length > max) {
    discard(body);
    throw new TooBig();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      discard(body);
      throw new TooBig();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
