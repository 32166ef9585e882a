/**
 * Passthrough: legacy path prefixes forwarded to a backend, all served by
 * one dispatcher that reads the table of routes as it is now
 * (route-table.ts), so a reload adds, removes or re-points a prefix without
 * registering a route.
 *
 * Design: the dispatcher is one @fastify/http-proxy route on `/*` (the
 * forwarding engine stays its reply.from over undici) that exists for a
 * request only when its URL lies under a served prefix: a router constraint
 * derived from the URL at each lookup is the switch. Any other request is
 * routed as if the route were not there, so the API, page and operator
 * routes, and the fallbacks' 404 envelope for an unknown path or a removed
 * prefix (src/http/fallbacks.ts, body parsing included), are unchanged. The
 * route is looked up again in the preHandler (one removed in between: the
 * 404 envelope) and kept for the request: it gives reply.from the backend's
 * origin, the path, the query and the timeout as last reloaded. It is an app
 * route, so the app's onRequest hooks (the rate limiter) run for it as for
 * the API.
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
import { passUrlKey, type PassRoute } from './request.js';
import type { PassTable } from './route-table.js';

export interface PassthroughDeps {
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
const NONE: ReadonlySet<string> = new Set();

function preflight(reply: FastifyReply): FastifyReply {
  return reply
    .code(204)
    .headers(CORS_HEADERS)
    .header('access-control-allow-methods', ALLOW)
    .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
    .header('access-control-max-age', '86400')
    .send();
}

/** What the dispatcher keeps per prefix (made at its first request; a prefix keeps its route object). */
interface Served {
  route: PassRoute;
  exit: Exit;
  cached: CachePath;
}

/** The router constraint that makes the `/*` route exist for URLs under a served prefix only. */
const CONSTRAINT = 'passthrough';
const SERVED = 'served';

type Strategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];
type RouteHandler = NonNullable<ReturnType<ReturnType<Strategy['storage']>['get']>>;

function servedConstraint(table: PassTable): Strategy {
  return {
    name: CONSTRAINT,
    storage: () => {
      const handlers = new Map<unknown, RouteHandler>();
      return {
        get: (value) => handlers.get(value) ?? null,
        set: (value, handler) => void handlers.set(value, handler),
      };
    },
    deriveConstraint: (req: { url?: string }) => (table.match(req.url ?? '') === null ? undefined : SERVED),
  };
}

/** The Location of a backend's redirect in the proxy's terms (its target path back to the prefix). */
function locationFor(location: string, route: PassRoute): string {
  if (route.rewritePrefix === route.prefix || !location.startsWith(route.rewritePrefix)) return location;
  const next = location.charCodeAt(route.rewritePrefix.length);
  if (!Number.isNaN(next) && next !== 0x2f && next !== 0x3f) return location;
  return route.prefix + location.slice(route.rewritePrefix.length);
}

export async function registerPassthrough(app: FastifyInstance, deps: PassthroughDeps): Promise<void> {
  const trusted = new AddressList(deps.trustProxy);
  const { cache, epilogue } = deps;
  const { table, metrics, limits } = cache;
  const entrance = passEntrance(cache.resolver);
  const forward = (request: FastifyRequest): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(cachedWayHeaders(request, requestHeadersFor(request.headers), trusted)))
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
    return out;
  };
  const family = { count: metrics.request, msg: 'request', field: 'passthrough' };
  const byRoute = new Map<PassRoute, Served>();
  const servedFor = (route: PassRoute): Served => {
    let s = byRoute.get(route);
    if (s === undefined) {
      const exit = exitOf(family, route.prefix);
      const c = { entrance, epilogue, exit, metrics, limits, clock: deps.clock, payer: deps.payer, fast: deps.fast };
      s = { route, exit, cached: cachePath(route, { ...c, forward }) };
      byRoute.set(route, s);
    }
    return s;
  };
  /** The prefix each dispatched request is served by (read by the forwarding options and the hooks). */
  const routed = new WeakMap<object, Served>();
  const ownExit = new WeakSet<object>(); // counted by the cached way
  const routeOf = (request: object | undefined): PassRoute | undefined =>
    request === undefined ? undefined : routed.get(request)?.route;

  app.addConstraintStrategy(servedConstraint(table));
  await app.register(async (scope) => {
    // Own handler: the plugin's scope would otherwise keep whichever handler existed when it was registered.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if ((error.statusCode ?? 500) < 500)
        return sendError(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
      request.log.error({ reqId: request.id, err: error, passthrough: routeOf(request)?.prefix }, 'passthrough error');
      return sendError(reply, new ProxyError('INTERNAL'));
    });
    // Streamed answers (and preflights, 405s): the cached way's leave through the epilogue themselves (hijacked).
    scope.addHook('onResponse', async (request, reply) => {
      const served = routed.get(request);
      if (served === undefined || ownExit.has(request)) return;
      const started = performance.now() - reply.elapsedTime;
      epilogue.finish(served.exit, relayed(reply.statusCode), started, { kind: 'sent', request });
    });
    await scope.register(httpProxy, {
      // No fixed upstream: the backend's origin is read at each request, through one undici Agent (a pool per origin).
      upstream: '',
      routes: ['/*'],
      constraints: { [CONSTRAINT]: SERVED },
      // Error envelopes and the rate limiter reply themselves; keep Fastify from logging each request.
      disableRequestLogging: true,
      retryMethods: [],
      // Location is rewritten per route (locationFor), not by the plugin's one prefix.
      internalRewriteLocationHeader: false,
      undici: {
        connections: deps.connections,
        pipelining: 1,
        connect: { timeout: deps.connectTimeoutMs, rejectUnauthorized: true },
      },
      preHandler: async (request, reply) => {
        const route = table.match(request.raw.url ?? '');
        if (route === null) {
          // Removed by a reload since the router matched: as an unknown path.
          reply.callNotFound();
          return reply;
        }
        const served = servedFor(route);
        routed.set(request, served);
        if (request.method === 'OPTIONS') return preflight(reply);
        if (!ANSWERED.has(request.method)) {
          sendError(reply, new ProxyError('METHOD_NOT_ALLOWED'), { extra: ['allow', ALLOW] });
          return reply;
        }
        const way = await served.cached(request, reply);
        if (way === 'counted') ownExit.add(request);
        if (way !== false) return reply;
        return undefined;
      },
      // `dest` is the request's path (validated by the plugin): its prefix replaced by the route's target path.
      handler: (request, reply, dest, options) => {
        const route = routeOf(request)!;
        const path = `${route.rewritePrefix}${dest.slice(route.prefix.length)}`;
        return reply.from(path, { ...options, timeout: limits.timeoutMs });
      },
      replyOptions: {
        getUpstream: (request) => routeOf(request)?.origin ?? '',
        // The route's parameters read at each request (a reload may change them; none: the query as it is).
        queryString: (search, url, request) =>
          withoutParams(search ? search.slice(1) : splitUrl(url)[1], routeOf(request)?.ignore ?? NONE),
        rewriteRequestHeaders: (request, headers) => forwardingHeaders(request, requestHeadersFor(headers), trusted),
        rewriteHeaders: (headers, request) => {
          const out = responseHeadersFor(headers);
          const route = routeOf(request);
          if (typeof out.location === 'string' && route !== undefined) out.location = locationFor(out.location, route);
          return out;
        },
        onResponse: (_request, reply, res) => {
          if (res.statusCode === 503 && !reply.hasHeader('retry-after'))
            reply.header('retry-after', RETRY_AFTER_503_SECONDS);
          reply.send(res.stream);
        },
        onError: (reply, { error }) => {
          const { err, reason } = passthroughError(error);
          metrics.failure(routeOf(reply.request)?.prefix ?? '', reason);
          sendError(reply as FastifyReply, err);
        },
      },
    });
  });
  // Set even when no route ignores a parameter yet: PASSTHROUGH_IGNORE_PARAMS reloads live.
  if (deps.fast !== null) deps.fast.normalizeWith(passUrlKey(table));
  app.addHook('onClose', async () => cache.fetcher.close());
}
