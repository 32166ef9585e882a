/**
 * Passthrough routes: legacy path prefixes forwarded to a backend.
 * Registered as plugins of the app, so the app's onRequest hooks (the rate
 * limiter) run for them as for the API.
 *
 * - OPTIONS is answered by the proxy's one CORS policy (never forwarded);
 *   methods other than GET, HEAD and OPTIONS get the 405 envelope.
 * - GET and HEAD go the cached way (cache-path.ts) unless they bypass it;
 *   everything else is streamed both ways by @fastify/http-proxy, uncached
 *   (`X-Cache: BYPASS`), with the proxy's CORS headers in place of the
 *   backend's.
 * - Hop-by-hop headers are dropped both ways, Set-Cookie from the backend too;
 *   credentials and forwarding headers as forwarding.ts says; the parameters
 *   of PASSTHROUGH_IGNORE_PARAMS are dropped from the forwarded query.
 * - Backend failures before the response headers become 502/504 envelopes; a
 *   failure while streaming the body can only cut the connection.
 * - A backend's 503 is relayed as it is (reply-from's own 503 retries are off),
 *   with `Retry-After: 1` added when the backend gave none (every 503 has one).
 */
import httpProxy from '@fastify/http-proxy';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AddressList } from '../common/address-list.js';
import type { PassthroughConfig } from '../config/types.js';
import { ProxyError, RETRY_AFTER_503_SECONDS } from '../errors/catalog.js';
import { sendError } from '../http/envelope-writer.js';
import { exitOf, type Epilogue, type Exit } from '../http/epilogue.js';
import { CORS_HEADERS } from '../http/header-block.js';
import type { PayerOf } from '../http/miss-payer.js';
import type { FastHits } from '../http/fast-hit.js';
import { relayed } from '../http/serve.js';
import { ALLOWED_REQUEST_HEADERS } from '../catalogue/paths.js';
import type { PassCache } from './build.js';
import { cachePath, type CachePath } from './cache-path.js';
import { splitUrl, withoutParams } from './cache-key.js';
import { passEntrance } from './entrance.js';
import { passthroughError } from './failure.js';
import { cachedWayHeaders, forwardingHeaders } from './forwarding.js';
import { requestHeadersFor, responseHeadersFor } from './headers.js';
import type { PassthroughMetrics } from './metrics.js';
import { passUrlKey, type PassRoute } from './request.js';

export interface PassthroughDeps {
  config: PassthroughConfig;
  /** The cache, routes and metrics (src/passthrough/build.ts). */
  cache: PassCache;
  /** Connect timeout to a backend. */
  connectTimeoutMs: number;
  /** Keep-alive connections per backend origin. */
  connections: number;
  /** Counts and logs every answer (the cached way's, written by it; streamed ones, counted once sent). */
  epilogue: Epilogue;
  /** TRUST_PROXY: peers whose forwarding headers are believed and relayed. */
  trustProxy: readonly string[];
  payer: PayerOf | null;
  clock: () => number;
  /** Pre-router answers of repeated fresh hits (null: every request is routed). */
  fast: FastHits | null;
}

const ALLOW = 'GET, HEAD, OPTIONS';
const ANSWERED: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

function preflight(reply: FastifyReply): FastifyReply {
  return reply
    .code(204)
    .headers(CORS_HEADERS)
    .header('access-control-allow-methods', ALLOW)
    .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
    .header('access-control-max-age', '86400')
    .send();
}

async function registerRoute(
  app: FastifyInstance,
  route: PassRoute,
  deps: PassthroughDeps,
  cached: CachePath,
  exit: Exit,
  trusted: AddressList,
): Promise<void> {
  const metrics: PassthroughMetrics = deps.cache.metrics;
  const { epilogue } = deps;
  await app.register(async (scope) => {
    // Own handler: the plugin's scope would otherwise keep whichever handler existed when it was registered.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if ((error.statusCode ?? 500) < 500)
        return sendError(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
      request.log.error({ reqId: request.id, err: error, passthrough: route.prefix }, 'passthrough error');
      return sendError(reply, new ProxyError('INTERNAL'));
    });
    // Streamed answers (and preflights, 405s): the cached way's leave through the epilogue themselves (hijacked).
    const ownExit = new WeakSet<FastifyRequest>(); // counted by the cached way
    scope.addHook('onResponse', async (request, reply) => {
      if (ownExit.has(request)) return;
      const started = performance.now() - reply.elapsedTime;
      epilogue.finish(exit, relayed(reply.statusCode), started, { kind: 'sent', request });
    });
    await scope.register(httpProxy, {
      // No fixed upstream: the backend's origin is read at each request (a reload may re-point the route),
      // through one undici Agent (a pool per origin).
      upstream: '',
      prefix: route.prefix,
      rewritePrefix: route.rewritePrefix,
      // Error envelopes and the rate limiter reply themselves; keep Fastify from logging each request.
      disableRequestLogging: true,
      retryMethods: [],
      undici: {
        connections: deps.connections,
        pipelining: 1,
        headersTimeout: deps.config.timeoutMs,
        bodyTimeout: deps.config.timeoutMs,
        connect: { timeout: deps.connectTimeoutMs, rejectUnauthorized: true },
      },
      preHandler: async (request, reply) => {
        if (route.removed) {
          reply.callNotFound();
          return reply;
        }
        if (request.method === 'OPTIONS') return preflight(reply);
        if (!ANSWERED.has(request.method)) {
          sendError(reply, new ProxyError('METHOD_NOT_ALLOWED'), { extra: ['allow', ALLOW] });
          return reply;
        }
        const way = await cached(request, reply);
        if (way === 'counted') ownExit.add(request);
        if (way !== false) return reply;
        return undefined;
      },
      replyOptions: {
        getUpstream: () => route.origin,
        // The route's parameters read at each request (a reload may change them; none: the query as it is).
        queryString: (search: string | undefined, url: string) =>
          withoutParams(search ? search.slice(1) : splitUrl(url)[1], route.ignore),
        rewriteRequestHeaders: (request, headers) => forwardingHeaders(request, requestHeadersFor(headers), trusted),
        rewriteHeaders: (headers) => responseHeadersFor(headers),
        onResponse: (_request, reply, res) => {
          if (res.statusCode === 503 && !reply.hasHeader('retry-after'))
            reply.header('retry-after', RETRY_AFTER_503_SECONDS);
          reply.send(res.stream);
        },
        onError: (reply, { error }) => {
          const { err, reason } = passthroughError(error);
          metrics.failure(route.prefix, reason);
          sendError(reply as FastifyReply, err);
        },
      },
    });
  });
}

export async function registerPassthrough(app: FastifyInstance, deps: PassthroughDeps): Promise<void> {
  const trusted = new AddressList(deps.trustProxy);
  const { cache } = deps;
  const entrance = passEntrance(cache.resolver);
  const forward = (request: FastifyRequest): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(cachedWayHeaders(request, requestHeadersFor(request.headers), trusted)))
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
    return out;
  };
  const family = { count: cache.metrics.request, msg: 'request', field: 'passthrough' };
  for (const route of cache.routes) {
    const exit = exitOf(family, route.prefix);
    const cached = cachePath(route, {
      entrance,
      epilogue: deps.epilogue,
      exit,
      metrics: cache.metrics,
      timeoutMs: deps.config.timeoutMs,
      clock: deps.clock,
      payer: deps.payer,
      fast: deps.fast,
      forward,
    });
    await registerRoute(app, route, deps, cached, exit, trusted);
  }
  // Set even when no route ignores a parameter yet: PASSTHROUGH_IGNORE_PARAMS reloads live.
  if (deps.fast !== null) deps.fast.normalizeWith(passUrlKey(cache.routes));
  app.addHook('onClose', async () => cache.fetcher.close());
}
