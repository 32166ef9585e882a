/**
 * The status page's history: sampled from the registry on a fake clock (no
 * timers), bounded to 900 points, totals over the window it holds, events
 * grouped by kind with counts, upstream and per-endpoint percentiles from
 * the histograms (per endpoint every 10 s), and /dashboard/history.json with its `after` parameter.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { History, POINTS } from '../../src/dashboard/history.js';
import { bucketQuantile } from '../../src/dashboard/reading.js';
import { registerDashboard } from '../../src/dashboard/routes.js';
import { OperatorAccess } from '../../src/http/admin-gate.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { registerTrustMetrics } from '../../src/upstream/trust-metrics.js';
import { FakeSources } from '../metrics/fixtures.js';
import { createRateLimitMetrics } from '../../src/ratelimit/metrics.js';
import { registerConsensusMetrics } from '../../src/consensus/metrics.js';
import { fakeClock } from '../helpers/clock.js';

function setup() {
  const sources = new FakeSources();
  const prom = createPrometheusMetrics(sources);
  const trust = registerTrustMetrics(prom.registry, ['upstream-a', 'upstream-b']);
  const clock = fakeClock();
  return { sources, prom, trust, clock, history: new History(prom.registry, clock.now) };
}

const loopbackOperators = new OperatorAccess({ adminAllow: ['loopback'], purgeAllow: [], adminHosts: [] });

describe('history', () => {
  it('keeps at most 900 one-second points', async () => {
    const { history, clock } = setup();
    for (let i = 0; i < POINTS + 50; i++) {
      await history.sample();
      clock.advance(1000);
    }
    const view = history.view();
    expect(view.points).toHaveLength(POINTS);
    expect(view.points[0]!.t).toBe(view.points[POINTS - 1]!.t - (POINTS - 1) * 1000);
    expect(history.view(view.points[POINTS - 3]!.t).points).toHaveLength(2);
  });

  it('totals the window per endpoint and status, with hit ratio and p99', async () => {
    const { history, clock, prom, trust } = setup();
    prom.metrics.request('tx/list', 200, 'HIT', 0.001); // before the window: not counted
    await history.sample();
    clock.advance(1000);
    for (let i = 0; i < 99; i++) prom.metrics.request('tx/list', 200, 'HIT', 0.0009);
    prom.metrics.request('tx/list', 200, 'MISS', 2);
    prom.metrics.request('block/max', 404, 'MISS', 0.02);
    prom.metrics.request('block/max', 503, 'ERROR', 0.02);
    trust.shed('upstream-a');
    prom.metrics.rateLimited();
    // Per-endpoint latency is read every tenth sample.
    for (let i = 0; i < 10; i++) {
      await history.sample();
      clock.advance(1000);
    }
    const view = history.view();
    expect(view.endpoints.map((e) => e.endpoint)).toEqual(['tx/list', 'block/max']);
    const tx = view.endpoints[0]!;
    expect(tx).toMatchObject({ requests: 100, hitRatio: 0.99 });
    expect(tx.p99Ms).toBeGreaterThan(0.5);
    expect(tx.p99Ms).toBeLessThanOrEqual(1);
    expect(view.byStatus).toEqual({ '2xx': 100, '4xx': 1, '5xx': 1 });
    expect(view.counters).toMatchObject({ shed: 1, rateLimited: 1 });
    expect(view.points[1]).toMatchObject({ requests: 103, hits: 100, s4xx: 1, s5xx: 1, shed: 1, rateLimited: 1 });
  });

  it('reports upstream latency percentiles of the last seconds', async () => {
    const { history, clock, prom } = setup();
    await history.sample();
    for (let i = 0; i < 100; i++) prom.metrics.upstreamRequest('upstream-a', 'tx/list', 'ok', i < 90 ? 0.004 : 0.2);
    clock.advance(1000);
    await history.sample();
    const last = history.view().points.at(-1)!;
    expect(last.upstreamP50Ms).toBeGreaterThan(2.5);
    expect(last.upstreamP50Ms).toBeLessThanOrEqual(5);
    expect(last.upstreamP99Ms).toBeGreaterThan(100);
    expect(last.upstreamP99Ms).toBeLessThanOrEqual(250);
  });

  it('groups events by kind with counts, and an upstream seen up for the first time is no event', async () => {
    const { history, clock, prom, sources } = setup();
    const healthy = sources.upstreams.bind(sources);
    let downB = false;
    sources.upstreams = () =>
      healthy().map((u) => ({ ...u, healthy: u.name === 'upstream-b' ? !downB : true, lagging: false }));
    await history.sample();
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      prom.metrics.request('tx/list', 502, 'ERROR', 0.1);
      prom.metrics.upstreamRequest('upstream-b', 'tx/list', 'timeout', 1);
      await history.sample();
    }
    downB = true;
    clock.advance(1000);
    await history.sample();
    downB = false;
    clock.advance(1000);
    await history.sample();
    const kinds = Object.fromEntries(history.view().events.map((e) => [e.kind, e.count]));
    expect(kinds).toEqual({
      '5xx answers': 3,
      'upstream upstream-b: timeout': 3,
      'upstream upstream-b down': 1,
      'upstream upstream-b up again': 1,
    });
    expect(history.view().events[0]!.kind).toBe('upstream upstream-b up again');
  });

  it(
    'counts miss-budget refusals and quorum disputes over the window, ' + 'and a benched upstream is an event',
    async () => {
      const { history, clock, prom } = setup();
      const limits = createRateLimitMetrics(prom.registry, ['explorer'], { buckets: () => 0, missBuckets: () => 0 });
      const consensus = registerConsensusMetrics(prom.registry, ['upstream-a', 'upstream-b']);
      limits.missRefused('ip:203.0.113.9'); // before the window: not counted
      consensus.vote('block/detail', 'majority');
      await history.sample();
      clock.advance(1000);
      for (let i = 0; i < 3; i++) limits.missRefused('ip:203.0.113.9');
      limits.missRefused('key:explorer');
      consensus.vote('block/detail', 'agreed');
      consensus.vote('block/detail', 'majority');
      consensus.vote('tx/list', 'disputed');
      consensus.vote('block/detail', 'short');
      consensus.sitOut('upstream-b', 'disputes');
      await history.sample();
      const view = history.view();
      expect(view.counters).toMatchObject({ missBudgetRefused: 4, quorumDisputes: 2 });
      const kinds = Object.fromEntries(view.events.map((e) => [e.kind, e.count]));
      expect(kinds).toMatchObject({
        'miss budget spent (429, code 4292)': 4,
        'upstreams disagreed on a final answer': 2,
        'upstream upstream-b benched (sits out)': 1,
      });
    },
  );

  it('interpolates quantiles like Prometheus, and has none without observations', () => {
    const b = { le: [0.1, 1, Infinity], counts: [50, 100, 100] };
    expect(bucketQuantile(0.5, b, null)).toBeCloseTo(0.1);
    expect(bucketQuantile(0.75, b, null)).toBeCloseTo(0.55);
    expect(bucketQuantile(0.5, b, b)).toBeNull();
  });
});

describe('GET /dashboard/history.json', () => {
  it('answers the window with version and start time, and 400 names a bad after', async () => {
    const { prom, clock } = setup();
    const app = Fastify();
    registerDashboard(app, { adminGate: loopbackOperators.admin, registry: prom.registry, clock: clock.now });
    const ok = await app.inject({ url: '/dashboard/history.json' });
    expect(ok.statusCode).toBe(200);
    const data = (ok.json() as { data: { version: string; startedAt: number; points: unknown[] } }).data;
    expect(data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(data.startedAt).toBe(clock.now());
    expect(Array.isArray(data.points)).toBe(true);
    const bad = await app.inject({ url: '/dashboard/history.json?after=soon' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      code: 4001,
      msg: 'invalid parameter after: expected a time in ms since the epoch, got "soon"',
      data: null,
    });
    await app.close();
  });
});
