/**
 * THE dashboard test: a real Prometheus scrapes a metrics endpoint under
 * traffic every second, then every panel query of the Grafana dashboard is
 * evaluated through Prometheus' HTTP API and must return data.
 *
 * The target is one function of type `StartMetricsTarget`: the real proxy
 * with a Redis tier in front of two simulators under an HTTP load loop
 * (test/metrics/proxy-target.ts).
 * Note: `chainproxy_redis_up` only exists when a Redis tier is configured.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrometheus, startPrometheus, type PrometheusServer } from '../helpers/prometheus.js';
import { dashboardQueries } from './dashboard.js';
import { startProxyTarget, type MetricsTarget, type StartMetricsTarget } from './proxy-target.js';

const startTarget: StartMetricsTarget = startProxyTarget;
/** rate() over [1m] needs two samples; a few more make every counter's increase visible. */
const MIN_SCRAPES = 4;

describePrometheus()('Grafana dashboard on a real Prometheus', () => {
  let target: MetricsTarget | undefined;
  let prom: PrometheusServer | undefined;

  beforeAll(async () => {
    target = await startTarget();
    prom = await startPrometheus({ target: target.target, metricsPath: target.metricsPath, job: 'chainproxy', scrapeIntervalSeconds: 1 });
    await prom.waitForScrapes(MIN_SCRAPES, 25_000);
  }, 45_000);

  afterAll(async () => {
    await prom?.stop();
    await target?.close();
  });

  it('every panel query returns data', async () => {
    const server = prom;
    if (server === undefined) throw new Error('prometheus not started');
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const empty: string[] = [];
    for (const q of queries) {
      const res = await server.query(q.expr);
      if (res.series.length === 0) empty.push(`${q.panel} [${q.refId}]: ${q.expr}`);
    }
    expect(empty, `panels without data:\n${empty.join('\n')}`).toEqual([]);
  });

  it('the headline queries carry plausible values', async () => {
    const server = prom;
    if (server === undefined) throw new Error('prometheus not started');
    const value = async (expr: string) => Number((await server.query(expr)).series[0]?.value[1]);
    const hitRatio = await value('(sum(rate(chainproxy_requests_total{cache=~"HIT|STALE"}[1m])) or vector(0)) / clamp_min(sum(rate(chainproxy_requests_total[1m])), 1e-9)');
    expect(hitRatio).toBeGreaterThan(0);
    expect(hitRatio).toBeLessThanOrEqual(1);
    expect(await value('sum(rate(chainproxy_requests_total[1m]))')).toBeGreaterThan(0);
    expect(await value('max(chainproxy_chain_best_head)')).toBeGreaterThan(0);
    const upstreams = (await server.query('max by (upstream) (chainproxy_upstream_head)')).series.map((s) => s.metric.upstream);
    expect(upstreams.length).toBeGreaterThanOrEqual(1);
  });
});
