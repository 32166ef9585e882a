/**
 * Families built from their row of the table (src/metrics/declare.ts): the
 * row's name, help, labels and buckets in the exposition; series shown from
 * the start; totals read at scrape time; dense series checked against the row.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { callbackGauge, counter, denseCounter, denseHistogram, gauge, histogram } from '../../src/metrics/declare.js';
import { METRICS } from '../../src/metrics/table.js';

describe('declare', () => {
  it("builds a counter with its row's name, help and labels, and shows the start series at 0", async () => {
    const registry = new Registry();
    const c = counter(registry, 'refresh_ahead_total', { start: [{ outcome: 'ok' }, { outcome: 'error' }] });
    c.inc({ outcome: 'ok' });
    const text = await registry.metrics();
    expect(text).toContain(`# HELP chainproxy_refresh_ahead_total ${METRICS.refresh_ahead_total.help}\n`);
    expect(text).toContain('# TYPE chainproxy_refresh_ahead_total counter\n');
    expect(text).toContain('chainproxy_refresh_ahead_total{outcome="ok"} 1\n');
    expect(text).toContain('chainproxy_refresh_ahead_total{outcome="error"} 0\n');
  });

  it('reads a total counted elsewhere at each scrape', async () => {
    const registry = new Registry();
    let n = 3;
    counter(registry, 'head_blocks_total', { total: () => n });
    expect(await registry.metrics()).toContain('chainproxy_head_blocks_total 3\n');
    n = 5;
    expect(await registry.metrics()).toContain('chainproxy_head_blocks_total 5\n');
  });

  it('sets a gauge at scrape time, and a callback gauge has no series without samples', async () => {
    const registry = new Registry();
    gauge(registry, 'purge_marks', (g) => g.set(7));
    let up: boolean | null = null;
    callbackGauge(registry, 'redis_up', () => (up === null ? [] : [{ labels: {}, value: up ? 1 : 0 }]));
    let text = await registry.metrics();
    expect(text).toContain('chainproxy_purge_marks 7\n');
    expect(text).not.toMatch(/^chainproxy_redis_up /m);
    up = true;
    text = await registry.metrics();
    expect(text).toContain('chainproxy_redis_up 1\n');
  });

  it("builds histograms with the row's buckets", async () => {
    const registry = new Registry();
    histogram(registry, 'invalidation_read_seconds').observe(0.02);
    denseHistogram(registry, 'request_duration_seconds', [{ endpoint: 'block/max', cache: 'HIT' }]).observe(0, 0.02);
    const text = await registry.metrics();
    const bounds = (name: string): string[] =>
      [...text.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"`, 'gm'))].map((m) => m[1]!);
    expect(bounds('chainproxy_invalidation_read_seconds')).toEqual([
      ...METRICS.invalidation_read_seconds.buckets.map(String),
      '+Inf',
    ]);
    expect(bounds('chainproxy_request_duration_seconds')).toEqual([
      ...METRICS.request_duration_seconds.buckets.map(String),
      '+Inf',
    ]);
  });

  it("refuses dense series whose label names are not the row's", () => {
    const registry = new Registry();
    const wrong = [{ endpoint: 'block/max', cache: 'HIT' }] as unknown as Array<{ tier: string }>;
    expect(() => denseCounter(registry, 'cache_evictions_total', wrong)).toThrow(/cache_evictions_total/);
    expect(registry.getMetricsAsArray()).toEqual([]);
    denseCounter(registry, 'cache_evictions_total', [{ tier: 'memory' }]).inc(0);
    expect(registry.getMetricsAsArray()).toHaveLength(1);
  });
});
