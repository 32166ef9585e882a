/**
 * The 22 catalogue endpoints: an adapter around serve() (parse → hit →
 * resolve, serve.ts) that writes the answer and counts it. Validation runs
 * before any lookup: an invalid request gets a 400 envelope naming the
 * parameter, and never reaches the cache or the upstream. A fresh memory hit
 * is answered synchronously (no promise, no JSON work) and its URL remembered
 * by the pre-router fast path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { ChainView } from '../chain/types.js';
import type { AccessLog } from '../config/types.js';
import type { Metrics } from '../metrics/types.js';
import type { Resolver } from '../pipeline/resolver.js';
import { writeAnswer } from './deliver.js';
import { endpointEntrance } from './entrances.js';
import type { FastHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { clientGone } from './client-gone.js';
import { serve, type Answer } from './serve.js';

export interface ApiRouteDeps {
  catalogue: Catalogue;
  resolver: Resolver;
  chain: ChainView;
  metrics: Metrics;
  limits: ParamLimits & { requestTimeoutMs: number };
  accessLog: AccessLog;
  clock: () => number;
  logger: Logger;
  /** Pre-router answers of repeated fresh hits (null: every request is routed). */
  fast?: FastHits | null;
  /** Who pays for an upstream request a miss leads (null: nobody). */
  payer?: PayerOf | null;
  /** Header pairs every API answer carries (EnvelopeWriter.answerHeaders). */
  answer: readonly string[];
}

export function registerApiRoutes(app: FastifyInstance, deps: ApiRouteDeps): void {
  const { resolver, chain, metrics, limits, accessLog, clock, answer } = deps;
  const fast = deps.fast ?? null;
  const payer = deps.payer ?? null;

  const finish = (
    request: FastifyRequest,
    endpoint: EndpointDef,
    started: number,
    status: number,
    a: Answer<CanonicalRequest>,
  ): void => {
    const seconds = (performance.now() - started) / 1000;
    const res = a.res;
    metrics.request(endpoint.name, status, a.cache, seconds);
    if (accessLog === 'off' || (accessLog === 'misses' && a.cache === 'HIT')) return;
    const err = a.error ?? res?.error ?? null;
    request.log.info(
      {
        reqId: request.id,
        endpoint: endpoint.name,
        cache: a.cache,
        status,
        upstream: res?.upstream ?? undefined,
        upstreamMs: res?.upstreamMs ?? undefined,
        ms: Math.round(seconds * 10_000) / 10,
        stale: res?.staleReason ?? undefined,
        err: err?.message ?? undefined,
        detail: err?.detail ?? undefined,
      },
      'request',
    );
  };

  const handlerFor = (endpoint: EndpointDef) => {
    const entrance = endpointEntrance(endpoint, resolver, limits);
    return function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      const url = request.raw.url ?? '';
      const write = (a: Answer<CanonicalRequest>): void => {
        finish(request, endpoint, started, writeAnswer(request, reply, a, chain.bestHead(), answer), a);
        if (fast !== null && a.cache === 'HIT' && a.req !== null) fast.remember(url, endpoint, a.req);
      };
      const a = serve(entrance, {
        url,
        timeoutMs: limits.requestTimeoutMs,
        clock,
        miss: () => ({ gone: clientGone(reply), payer: payer === null ? null : payer(request, reply) }),
      });
      if (a instanceof Promise) void a.then(write);
      else write(a);
    };
  };

  for (const endpoint of deps.catalogue.all()) {
    app.get(`/${endpoint.name}`, handlerFor(endpoint));
  }
}
