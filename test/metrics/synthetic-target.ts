/**
 * Scrape targets for the dashboard test. A `StartMetricsTarget` starts
 * something serving Prometheus metrics *under traffic* and returns where to
 * scrape it; the dashboard test only depends on this shape, so switching it
 * to the real proxy (src/app.ts + the simulator + an HTTP load loop) means
 * writing one more function of this type and passing it instead.
 */
import Fastify from 'fastify';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { driveTraffic, FakeSources } from './fixtures.js';

export interface MetricsTarget {
  /** `host:port` Prometheus scrapes. */
  target: string;
  metricsPath: string;
  /** Stops the traffic and the server. */
  close(): Promise<void>;
}

export type StartMetricsTarget = () => Promise<MetricsTarget>;

/**
 * A small Fastify server serving `render()` of a fresh registry at /metrics,
 * while a timer drives every push method (all endpoints, all cache results,
 * two upstreams, both tiers) and moves the fake sources (heads, sizes, breakers).
 */
export const startSyntheticTarget: StartMetricsTarget = async () => {
  const sources = new FakeSources();
  const prom = createPrometheusMetrics(sources);
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => {
    const text = await prom.render();
    return reply.header('content-type', prom.contentType).header('cache-control', 'no-store').send(text);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no TCP address');

  let round = 0;
  const drive = () => {
    driveTraffic(prom.metrics, round++);
    sources.advance();
  };
  drive();
  const timer = setInterval(drive, 50);
  return {
    target: `127.0.0.1:${addr.port}`,
    metricsPath: '/metrics',
    async close() {
      clearInterval(timer);
      await app.close();
    },
  };
};
