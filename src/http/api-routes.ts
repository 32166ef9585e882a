/**
 * recv → hash → lookup → fetch → deliver for the 22 catalogue endpoints.
 * Validation runs before any lookup: an invalid request gets a 400 envelope
 * naming the parameter, and never reaches the cache or the upstream.
 * A fresh memory hit is answered synchronously (no promise, no JSON work).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/index.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { ChainView } from '../chain/types.js';
import type { AccessLog } from '../config/types.js';
import { ProxyError, toProxyError } from '../errors/catalog.js';
import type { Metrics } from '../metrics/types.js';
import type { Resolution, Resolver } from '../pipeline/resolver.js';
import { deliver, deliverError } from './deliver.js';
import type { FastHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { clientGone } from './client-gone.js';
import { rawQuery, withTimeout } from './request-util.js';

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
    res: Resolution | null,
    err: ProxyError | null,
  ): void => {
    const seconds = (performance.now() - started) / 1000;
    const result = res !== null ? res.result : 'ERROR';
    metrics.request(endpoint.name, status, result, seconds);
    if (accessLog === 'off' || (accessLog === 'misses' && result === 'HIT')) return;
    request.log.info(
      {
        reqId: request.id,
        endpoint: endpoint.name,
        cache: result,
        status,
        upstream: res?.upstream ?? undefined,
        upstreamMs: res?.upstreamMs ?? undefined,
        ms: Math.round(seconds * 10_000) / 10,
        stale: res?.staleReason ?? undefined,
        err: err?.message ?? res?.error?.message ?? undefined,
        detail: err?.detail ?? res?.error?.detail ?? undefined,
      },
      'request',
    );
  };

  const handlerFor = (endpoint: EndpointDef) =>
    function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      let req;
      const url = request.raw.url ?? '';
      try {
        req = canonicalize(endpoint, rawQuery(url), limits);
      } catch (e) {
        const err = toProxyError(e);
        deliverError(reply, err, chain.bestHead());
        finish(request, endpoint, started, err.status, null, err);
        return;
      }
      const now = clock();
      const hit = resolver.hit(req, now);
      if (hit !== undefined) {
        const status = deliver(request, reply, hit, now, chain.bestHead(), answer);
        finish(request, endpoint, started, status, hit, null);
        if (fast !== null) fast.remember(url, endpoint, req);
        return;
      }
      withTimeout(
        resolver.resolve(req, clientGone(reply), payer === null ? null : payer(request, reply)),
        limits.requestTimeoutMs,
      ).then(
        (res) => {
          const status = deliver(request, reply, res, clock(), chain.bestHead(), answer);
          finish(request, endpoint, started, status, res, null);
        },
        (e: unknown) => {
          const err = toProxyError(e);
          deliverError(reply, err, chain.bestHead());
          finish(request, endpoint, started, err.status, null, err);
        },
      );
    };

  for (const endpoint of deps.catalogue.all()) {
    app.get(`/${endpoint.name}`, handlerFor(endpoint));
  }
}
