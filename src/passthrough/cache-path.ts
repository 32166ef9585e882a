/**
 * The cached way of a passthrough request: serve() through the passthrough
 * entrance, the answer written by the API's own writer (header builder,
 * ETag/304, compressed variants, CORS), counted and logged by the epilogue.
 * An answer the cache does not keep is streamed on the reply as it arrives
 * (counted by the route's hook, as every streamed answer). A
 * request that bypasses the cache (cache-rules.ts), a prefix whose policy is
 * `off`, an unusual path and a key whose body was over the bound are left to
 * the streaming proxy.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Epilogue, Exit } from '../http/epilogue.js';
import type { FastHits } from '../http/fast-hit.js';
import { clientGone } from '../http/client-gone.js';
import type { PayerOf } from '../http/miss-payer.js';
import { serve, servedResolution, type Answer, type Entrance } from '../http/serve.js';
import { BackendFailed, TooBig, Unstored } from './backend-answer.js';
import type { PassLimits } from './fetcher.js';
import { responseHeadersFor } from './headers.js';
import { unusualPath } from './cache-key.js';
import { requestBypasses } from './cache-rules.js';
import { passthroughError } from './failure.js';
import type { PassthroughMetrics } from './metrics.js';
import { passRequest, type PassRequest, type PassRoute } from './request.js';
import { chooseEncoding } from '../cache/negotiate.js';

export interface CachePathDeps {
  entrance: Entrance<PassRequest>;
  /** Writes, counts and logs every answer of the cached way. */
  epilogue: Epilogue;
  exit: Exit;
  metrics: PassthroughMetrics;
  /** PASSTHROUGH_TIMEOUT_MS as last reloaded. */
  limits: Readonly<PassLimits>;
  clock: () => number;
  payer: PayerOf | null;
  /** Pre-router answers of repeated fresh hits (null: every request is routed). */
  fast: FastHits | null;
  /** The forwarding headers the backend gets for `request` (forwarding.ts). */
  forward: (request: FastifyRequest) => Record<string, string>;
}

const NEVER = (): never => {
  throw new Error('the fast path answers hits only');
};

/** Keys whose body was over the bound, streamed without asking the cache for a while. */
const BIG_KEPT_MS = 5 * 60_000;
const BIG_KEYS_MAX = 1024;

/**
 * Whether the request went the cached way, then answered here: `counted` when the
 * epilogue has its answer already, `sent` when it is counted once sent, as a streamed one.
 */
export type CachePath = (request: FastifyRequest, reply: FastifyReply) => Promise<false | 'sent' | 'counted'>;

export function cachePath(route: PassRoute, d: CachePathDeps): CachePath {
  const big = new Map<string, number>();
  const tooBig = (key: string, now: number): boolean => {
    const until = big.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    big.delete(key);
    return false;
  };
  const rememberBig = (key: string, now: number): void => {
    if (big.size >= BIG_KEYS_MAX) big.delete(big.keys().next().value!);
    big.set(key, now + BIG_KEPT_MS);
  };
  /**
   * A fresh hit, answered before the router from now on (hits only, as any request there) under its key, the URL
   * without its ignored parameters (what the pre-router path looks a passthrough URL up by: `passUrlKey`).
   */
  const remember = (fast: FastHits, url: string, req: PassRequest): void => {
    const request = { url, parsed: req, hitOnly: true as const, timeoutMs: 0, clock: d.clock, miss: NEVER };
    fast.rememberHit(url, {
      name: url.split('?', 1)[0]!.slice(1),
      exit: d.exit,
      answer: () => serve(d.entrance, request),
      admits: (r) => !requestBypasses(r.method ?? '', r.headers),
    });
  };

  return async (request, reply) => {
    const url = request.raw.url ?? '';
    if (route.policy?.kind === 'off' || requestBypasses(request.method, request.headers)) return false;
    if (unusualPath(url.split('?', 1)[0]!)) return false;
    const started = performance.now();
    const req = passRequest(route, url, d.forward(request));
    if (tooBig(req.key, d.clock())) return false;
    const served = serve(d.entrance, {
      url,
      parsed: req,
      // A backstop: the backend's own timeouts (headers, each pause in the body) answer first.
      timeoutMs: 2 * d.limits.timeoutMs + 1000,
      clock: d.clock,
      miss: () => ({
        gone: clientGone(reply),
        payer: d.payer === null ? null : d.payer(request, reply),
        compressed: chooseEncoding(request.headers['accept-encoding']) !== 'identity',
      }),
    });
    let a = served instanceof Promise ? await served : served;
    if (a.error instanceof Unstored) {
      // The fetch's leader streams the answer; a request that joined it asks the backend itself.
      const body = a.error.take();
      if (body === null) return false;
      reply
        .code(a.error.backendStatus)
        .headers(responseHeadersFor({ ...a.error.headers }))
        .send(body);
      return 'sent';
    }
    if (a.error instanceof TooBig) {
      rememberBig(req.key, d.clock());
      return false;
    }
    if (a.error instanceof BackendFailed) a = relayedFailure(req, a.now, a.error);
    else if (a.error !== null && a.error.status >= 502)
      d.metrics.failure(route.prefix, passthroughError(a.error).reason);
    d.epilogue.finish(d.exit, a, started, { kind: 'routed', request, reply });
    if (a.cache === 'HIT' && d.fast !== null) remember(d.fast, req.key, req);
    return 'counted';
  };
}

/** A backend's 5xx with no copy to serve stale: its own answer, not stored (`BYPASS`). */
function relayedFailure(req: PassRequest, now: number, e: BackendFailed): Answer<PassRequest> {
  const res = { result: 'BYPASS', entry: e.entry, mem: undefined, upstream: null, upstreamMs: null } as const;
  return servedResolution(req, { ...res, staleReason: null, error: null }, now);
}
