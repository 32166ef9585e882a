/**
 * THE dashboard test: a real Prometheus scrapes a metrics endpoint under
 * traffic every second, then every panel query of the Grafana dashboard is
 * evaluated through Prometheus' HTTP API, as Grafana sends it with the job
 * variable set and instance on "All", and must return data; with another
 * job chosen the filtered queries find nothing.
 *
 * The target is one function of type `StartMetricsTarget`: the real proxy
 * with a Redis tier in front of three simulators under an HTTP load loop
 * (test/metrics/proxy-target.ts).
 * Note: `chainproxy_redis_up` only exists when a Redis tier is configured.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { describePrometheus, startPrometheus, type PrometheusServer } from '../helpers/prometheus.js';
import { dashboardQueries, withVariables } from './dashboard.js';
import { startProxyTarget, type MetricsTarget, type StartMetricsTarget } from './proxy-target.js';

const startTarget: StartMetricsTarget = startProxyTarget;
/** rate() over [1m] needs two samples; a few more make every counter's increase visible. */
const MIN_SCRAPES = 4;

describePrometheus()('Grafana dashboard on a real Prometheus', () => {
  let target: MetricsTarget | undefined;
  let prom: PrometheusServer | undefined;

  beforeAll(async () => {
    target = await startTarget();
    prom = await startPrometheus({
      target: target.target,
      metricsPath: target.metricsPath,
      job: 'chainproxy',
      scrapeIntervalSeconds: 1,
    });
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
      const expr = withVariables(q.expr, { job: 'chainproxy', instance: '.*' });
      // Series appear as the load loop and the scrapes go on: a panel without data yet is asked again.
      const hasData = async () => (await server.query(expr)).series.length > 0;
      if (!(await hasData()))
        await waitFor(hasData, 20_000, q.panel).catch(() => empty.push(`${q.panel} [${q.refId}]: ${q.expr}`));
    }
    expect(empty, `panels without data:\n${empty.join('\n')}`).toEqual([]);
  }, 120_000);

  it('the job and instance variables narrow the queries', async () => {
    const server = prom;
    if (server === undefined) throw new Error('prometheus not started');
    const byEndpoint = dashboardQueries().find((q) => q.panel === 'Request rate by endpoint');
    expect(byEndpoint).toBeDefined();
    const instance = `127.0.0.1:${target!.target.split(':')[1]!}`;
    expect(
      (await server.query(withVariables(byEndpoint!.expr, { job: 'chainproxy', instance }))).series.length,
    ).toBeGreaterThan(0);
    expect((await server.query(withVariables(byEndpoint!.expr, { job: 'another', instance: '.*' }))).series).toEqual(
      [],
    );
    expect(
      (await server.query(withVariables(byEndpoint!.expr, { job: 'chainproxy', instance: 'elsewhere:1' }))).series,
    ).toEqual([]);
    // The variables' own query finds the job and the instance.
    const jobs = (await server.query('count by (job, instance) (chainproxy_cache_max_bytes)')).series.map(
      (x) => x.metric,
    );
    expect(jobs).toContainEqual(expect.objectContaining({ job: 'chainproxy', instance }));
  });

  it('the headline queries carry plausible values', async () => {
    const server = prom;
    if (server === undefined) throw new Error('prometheus not started');
    const value = async (expr: string) => Number((await server.query(expr)).series[0]?.value[1]);
    // The load loop makes every one of these happen; on a loaded machine some take a few scrapes.
    const positive = async (expr: string) => {
      await waitFor(async () => (await value(expr)) > 0, 45_000, expr).catch(() => undefined);
      return value(expr);
    };
    const hitRatio = await positive(
      '(sum(rate(chainproxy_requests_total{cache=~"HIT|STALE"}[1m])) or ' +
        'vector(0)) / clamp_min(sum(rate(chainproxy_requests_total[1m])), 1e-9)',
    );
    expect(hitRatio).toBeGreaterThan(0);
    expect(hitRatio).toBeLessThanOrEqual(1);
    expect(await positive('sum(rate(chainproxy_requests_total[1m]))')).toBeGreaterThan(0);
    expect(await positive('max(chainproxy_chain_best_head)')).toBeGreaterThan(0);
    const upstreams = (await server.query('max by (upstream) (chainproxy_upstream_head)')).series.map(
      (s) => s.metric.upstream,
    );
    expect(upstreams.length).toBeGreaterThanOrEqual(1);
    // The subsystems' panels show traffic, not only their zero fallbacks.
    // The head stream and the activity stream.
    expect(await value('sum(chainproxy_stream_open)')).toBe(2);
    expect(await value('sum(chainproxy_activity_streams)')).toBe(1);
    for (const counter of [
      'chainproxy_upstream_shed_total',
      'chainproxy_page_requests_total{page="home"}',
      'chainproxy_passthrough_requests_total{route="/legacy"}',
      'chainproxy_passthrough_failures_total{route="/dead"}',
      'chainproxy_api_key_requests_total{key="explorer"}',
      'chainproxy_rate_limit_refused_total{client="tiny"}',
      'chainproxy_api_key_unknown_total',
      'chainproxy_stream_events_sent_total',
      'chainproxy_refresh_ahead_total',
      'chainproxy_miss_budget_charged_total{client="anonymous"}',
      'chainproxy_miss_budget_refused_total{client="anonymous"}',
      'chainproxy_api_key_credits_total{key="explorer"}',
      'chainproxy_quorum_votes_total{endpoint="block/detail"}',
      'chainproxy_upstream_sit_outs_total{upstream="u2",reason="head"}',
      'chainproxy_invalidation_blocks_total{outcome="complete"}',
      'chainproxy_invalidation_fallbacks_total',
      'chainproxy_invalidation_guarded_total{reason="future-height"}',
      'chainproxy_invalidation_entries_total',
      'chainproxy_head_probes_total',
      'chainproxy_refetches_unchanged_total',
      'chainproxy_activity_events_delivered_total',
    ])
      expect(await positive(`sum(${counter})`), counter).toBeGreaterThan(0);
  }, 120_000);
});
