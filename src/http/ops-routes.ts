/**
 * Operations endpoints: liveness, readiness (an upstream healthy and not
 * lagging), a JSON status page and Prometheus metrics. Never cached, never
 * rate limited.
 */
import type { FastifyInstance } from 'fastify';
import type { ChainView } from '../chain/types.js';
import { envelopeBody } from '../errors/catalog.js';
import type { UpstreamStatus } from '../upstream/types.js';

export const OPS_PATHS = ['/healthz', '/readyz', '/status', '/metrics'] as const;

export interface OpsDeps {
  ready(): boolean;
  upstreams(): UpstreamStatus[];
  chain: ChainView;
  cache(): Record<string, unknown>;
  metrics: { contentType: string; render(): Promise<string> } | null;
  startedAt: number;
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
      .send(ready ? envelopeBody(0, 'success', { status: 'ready' }) : envelopeBody(5031, 'not ready: no healthy, up-to-date upstream'));
  });
  app.get('/status', (_req, reply) => {
    reply.header('content-type', json).header('cache-control', 'no-store').send(
      envelopeBody(0, 'success', {
        ready: deps.ready(),
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
        chain: { bestHead: deps.chain.bestHead(), finalHeight: deps.chain.finalHeight() },
        upstreams: deps.upstreams(),
        cache: deps.cache(),
      }),
    );
  });
  const metrics = deps.metrics;
  if (metrics !== null) {
    app.get('/metrics', async (_req, reply) => {
      const text = await metrics.render();
      reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
    });
  }
}
