/**
 * The 22 catalogue endpoints: an adapter around serve() (parse → hit →
 * resolve, serve.ts) whose answers leave through the epilogue (written,
 * counted, logged: epilogue.ts). Validation runs before any lookup: an
 * invalid request gets a 400 envelope naming the parameter, and never reaches
 * the cache or the upstream. A fresh memory hit is answered synchronously (no
 * promise, no JSON work) and its URL remembered by the pre-router fast path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { Resolver } from '../pipeline/resolver.js';
import { endpointEntrance } from './entrances.js';
import { exitOf, type Epilogue } from './epilogue.js';
import type { FastHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { clientGone } from './client-gone.js';
import { serve, type Answer } from './serve.js';
import { chooseEncoding } from '../cache/negotiate.js';

export interface ApiRouteDeps {
  catalogue: Catalogue;
  resolver: Resolver;
  limits: ParamLimits & { requestTimeoutMs: number };
  clock: () => number;
  epilogue: Epilogue;
  /** Pre-router answers of repeated fresh hits (null: every request is routed). */
  fast?: FastHits | null;
  /** Who pays for an upstream request a miss leads (null: nobody). */
  payer?: PayerOf | null;
}

export function registerApiRoutes(app: FastifyInstance, deps: ApiRouteDeps): void {
  const { resolver, limits, clock, epilogue } = deps;
  const fast = deps.fast ?? null;
  const payer = deps.payer ?? null;

  const handlerFor = (endpoint: EndpointDef) => {
    const entrance = endpointEntrance(endpoint, resolver, limits);
    const exit = exitOf(epilogue.endpoints, endpoint.name);
    return function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      const url = request.raw.url ?? '';
      const write = (a: Answer<CanonicalRequest>): void => {
        epilogue.finish(exit, a, started, { kind: 'routed', request, reply });
        if (fast !== null && a.cache === 'HIT' && a.req !== null) fast.remember(url, endpoint, a.req);
      };
      const a = serve(entrance, {
        url,
        timeoutMs: limits.requestTimeoutMs,
        clock,
        miss: () => ({
          gone: clientGone(reply),
          payer: payer === null ? null : payer(request, reply),
          compressed: chooseEncoding(request.headers['accept-encoding']) !== 'identity',
        }),
      });
      if (a instanceof Promise) void a.then(write);
      else write(a);
    };
  };

  for (const endpoint of deps.catalogue.all()) {
    app.get(`/${endpoint.name}`, handlerFor(endpoint));
  }
}
