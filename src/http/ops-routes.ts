/**
 * Operations endpoints: liveness, readiness (an upstream healthy and not
 * lagging), a JSON status page and Prometheus metrics. Never cached, never
 * rate limited. /healthz and /readyz are public (load balancers); /status and
 * /metrics pass the operator gate (admin-gate.ts), and /metrics renders at
 * most once per `metricsCacheMs`.
 */
import type { FastifyInstance } from 'fastify';
import type { ChainView } from '../chain/types.js';
import { EDGE_ERRORS, envelopeBody } from '../errors/catalog.js';
import type { UpstreamStatus } from '../upstream/types.js';
import { adminOnly, type AdminGate } from './admin-gate.js';
import { throttledRender } from './metrics-render.js';

export const OPS_PATHS = ['/healthz', '/readyz', '/status', '/metrics'] as const;

export interface OpsDeps {
  ready(): boolean;
  upstreams(): UpstreamStatus[];
  chain: ChainView;
  cache(): Record<string, unknown>;
  metrics: { contentType: string; render(): Promise<string> } | null;
  startedAt: number;
  /** Who may see /status and /metrics. */
  adminGate: AdminGate;
  /** /metrics renders at most once per this many ms (0: every scrape). */
  metricsCacheMs: number;
  /** Quorum votes and the recent disputes (null: UPSTREAM_QUORUM 1). */
  consensus?: (() => Record<string, unknown> | null) | undefined;
}

export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  const json = 'application/json; charset=utf-8';
  app.get('/healthz', (_req, reply) => {
    reply.header('content-type', json).header('cache-control', 'no-store').send(envelopeBody(0, 'success', { status: 'alive' }));
  });
  app.get('/readyz', (_req, reply) => {
    const ready = deps.ready();
    reply
      .code(ready ? 200 : 503)
      .header('content-type', json)
      .header('cache-control', 'no-store')
      .send(ready ? envelopeBody(0, 'success', { status: 'ready' }) : envelopeBody(EDGE_ERRORS.NOT_READY.code, EDGE_ERRORS.NOT_READY.msg));
  });
  const operatorOnly = { onRequest: adminOnly(deps.adminGate) };
  app.get('/status', operatorOnly, (_req, reply) => {
    reply.header('content-type', json).header('cache-control', 'no-store').send(
      envelopeBody(0, 'success', {
        ready: deps.ready(),
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
        chain: { bestHead: deps.chain.bestHead(), finalHeight: deps.chain.finalHeight() },
        upstreams: deps.upstreams(),
        cache: deps.cache(),
        consensus: deps.consensus?.() ?? null,
      }),
    );
  });
  const metrics = deps.metrics;
  if (metrics !== null) {
    const render = throttledRender(() => metrics.render(), deps.metricsCacheMs);
    app.get('/metrics', operatorOnly, async (_req, reply) => {
      const text = await render();
      reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
    });
  }
}
