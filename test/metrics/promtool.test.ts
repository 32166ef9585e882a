import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { createPrometheusMetrics, ENDPOINT_LABELS, REQUEST_BUCKETS } from '../../src/metrics/prometheus.js';
import { describePromtool, runPromtool } from '../helpers/prometheus.js';
import { exerciseAll, FakeSources } from './fixtures.js';

/** Label values of `label` across all samples of the exposition. */
function labelValues(text: string, label: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`, 'g'))) out.add(m[1] ?? '');
  return out;
}

describePromtool()('promtool check metrics', () => {
  it('reports nothing for a registry after every push method and with all sources', async () => {
    const prom = createPrometheusMetrics(new FakeSources());
    exerciseAll(prom.metrics);
    const text = await prom.render();
    const res = runPromtool(['check', 'metrics'], text);
    expect(res.stdout + res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('reports nothing for a fresh registry with empty sources', async () => {
    const prom = createPrometheusMetrics({
      tiers: () => [],
      upstreams: () => [],
      chain: { bestHead: () => null, finalHeight: () => null },
      redisHealthy: () => null,
    });
    const res = runPromtool(['check', 'metrics'], await prom.render());
    expect(res.stdout + res.stderr).toBe('');
    expect(res.status).toBe(0);
  });
});

describe('metric families', () => {
  it('exposes every documented family with the chainproxy_ prefix, HELP and TYPE', async () => {
    const prom = createPrometheusMetrics(new FakeSources());
    exerciseAll(prom.metrics);
    const text = await prom.render();
    const expected = [
      'requests_total',
      'request_duration_seconds',
      'upstream_requests_total',
      'upstream_request_duration_seconds',
      'upstream_retries_total',
      'upstream_hedges_total',
      'singleflight_joins_total',
      'upstream_requests_saved_total',
      'cache_entries',
      'cache_bytes',
      'cache_max_bytes',
      'cache_evictions_total',
      'cache_tier_errors_total',
      'upstream_head',
      'chain_best_head',
      'chain_final_height',
      'upstream_lag_blocks',
      'upstream_up',
      'upstream_lagging',
      'upstream_breaker_state',
      'upstream_in_flight',
      'redis_up',
      'rate_limited_total',
    ];
    for (const name of expected) {
      expect(text).toContain(`# HELP chainproxy_${name} `);
      expect(text).toMatch(new RegExp(`^chainproxy_${name}(_bucket)?[{ ]`, 'm'));
    }
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });

  it('counts requests by endpoint, status class and cache result, and times them', async () => {
    const prom = createPrometheusMetrics(new FakeSources());
    prom.metrics.request('tx/list', 200, 'HIT', 0.0003);
    prom.metrics.request('tx/list', 200, 'HIT', 0.0004);
    prom.metrics.request('block/max', 504, 'ERROR', 3);
    prom.metrics.request('block/max', 304, 'HIT', 0.00001);
    prom.metrics.request('tx/detail', 404, 'MISS', 0.2);
    const text = await prom.render();
    expect(text).toContain('chainproxy_requests_total{endpoint="tx/list",cache="HIT",status_class="2xx"} 2');
    expect(text).toContain('chainproxy_requests_total{endpoint="block/max",cache="ERROR",status_class="5xx"} 1');
    expect(text).toContain('chainproxy_requests_total{endpoint="block/max",cache="HIT",status_class="3xx"} 1');
    expect(text).toContain('chainproxy_requests_total{endpoint="tx/detail",cache="MISS",status_class="4xx"} 1');
    expect(text).toContain('chainproxy_request_duration_seconds_bucket{endpoint="tx/list",cache="HIT",le="0.00025"} 0');
    expect(text).toContain('chainproxy_request_duration_seconds_bucket{endpoint="tx/list",cache="HIT",le="0.0005"} 2');
    expect(text).toContain(
      'chainproxy_request_duration_seconds_bucket{endpoint="block/max",cache="HIT",le="0.0001"} 1',
    );
    expect(text).toContain('chainproxy_request_duration_seconds_bucket{endpoint="block/max",cache="ERROR",le="2.5"} 0');
    expect(text).toContain(
      'chainproxy_request_duration_seconds_bucket{endpoint="block/max",cache="ERROR",le="+Inf"} 1',
    );
    expect(text).toMatch(/chainproxy_request_duration_seconds_sum\{endpoint="tx\/list",cache="HIT"\} 0\.0007\d*/);
    expect(text).toContain('chainproxy_request_duration_seconds_count{endpoint="tx/list",cache="HIT"} 2');
    expect(REQUEST_BUCKETS[0]).toBeLessThan(0.001);
    expect(REQUEST_BUCKETS.at(-1)).toBe(10);
  });

  it('pulls gauges at scrape time and omits unknown values', async () => {
    const sources = new FakeSources();
    const prom = createPrometheusMetrics(sources);
    let text = await prom.render();
    expect(text).toContain(`chainproxy_chain_best_head ${sources.head}`);
    expect(text).toContain('chainproxy_upstream_breaker_state{upstream="upstream-a",state="closed"} 1');
    expect(text).toContain('chainproxy_upstream_breaker_state{upstream="upstream-a",state="open"} 0');
    expect(text).toContain('chainproxy_cache_max_bytes{tier="memory"}');
    expect(text).not.toContain('chainproxy_cache_max_bytes{tier="redis"}');
    expect(text).toContain('chainproxy_redis_up 1');
    sources.head += 5;
    sources.redis = null;
    text = await prom.render();
    expect(text).toContain(`chainproxy_chain_best_head ${sources.head}`);
    expect(text).not.toMatch(/^chainproxy_redis_up /m);

    const empty = createPrometheusMetrics({
      tiers: () => [],
      upstreams: () => [],
      chain: { bestHead: () => null, finalHeight: () => null },
      redisHealthy: () => false,
    });
    text = await empty.render();
    expect(text).not.toMatch(/^chainproxy_chain_best_head /m);
    expect(text).toContain('chainproxy_redis_up 0');
  });
});

describe('label cardinality', () => {
  it('maps unknown endpoints to other and never exposes raw paths', async () => {
    const prom = createPrometheusMetrics(new FakeSources());
    const garbage = [
      '/tx/detail?hash=0xabc',
      'tx/detail/../x',
      '0xdeadbeefdeadbeef',
      '',
      'TX/LIST',
      '/metrics',
      'a'.repeat(300),
    ];
    for (const g of garbage) {
      prom.metrics.request(g, 200, 'HIT', 0.001);
      prom.metrics.upstreamRequest('upstream-a', g, 'ok', 0.01);
      prom.metrics.upstreamRetry(g);
      prom.metrics.upstreamHedge(g);
      prom.metrics.singleFlightJoin(g);
      prom.metrics.upstreamSaved(g);
    }
    exerciseAll(prom.metrics);
    const text = await prom.render();
    const endpoints = labelValues(text, 'endpoint');
    expect([...endpoints].every((e) => ENDPOINT_LABELS.includes(e))).toBe(true);
    expect(endpoints.has('other')).toBe(true);
    expect(ENDPOINT_LABELS).toEqual([...ENDPOINT_NAMES, 'other']);
    for (const g of garbage) if (g !== '') expect(text).not.toContain(`"${g}"`);
    expect(text).not.toContain('0xdeadbeef');
    expect(labelValues(text, 'cache')).toEqual(new Set(['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR']));
    expect(labelValues(text, 'status_class')).toEqual(new Set(['2xx', '3xx', '4xx', '5xx']));
    expect(labelValues(text, 'upstream')).toEqual(new Set(['upstream-a', 'upstream-b']));
    expect(labelValues(text, 'tier')).toEqual(new Set(['memory', 'redis']));
    const requestSeries = text.split('\n').filter((l) => l.startsWith('chainproxy_requests_total{')).length;
    expect(requestSeries).toBeLessThanOrEqual(ENDPOINT_LABELS.length * 5 * 4);
  });

  it('caps distinct upstream names', async () => {
    const prom = createPrometheusMetrics({
      tiers: () => [],
      upstreams: () => [],
      chain: { bestHead: () => null, finalHeight: () => null },
      redisHealthy: () => null,
    });
    for (let i = 0; i < 100; i++) prom.metrics.upstreamRequest(`u${i}`, 'tx/list', 'ok', 0.01);
    const ups = labelValues(await prom.render(), 'upstream');
    expect(ups.size).toBeLessThanOrEqual(33);
    expect(ups.has('other')).toBe(true);
  });

  it('drops invalid durations instead of throwing', async () => {
    const prom = createPrometheusMetrics(new FakeSources());
    for (const s of [NaN, -1, Infinity]) {
      expect(() => prom.metrics.request('tx/list', 200, 'HIT', s)).not.toThrow();
      expect(() => prom.metrics.upstreamRequest('upstream-a', 'tx/list', 'ok', s)).not.toThrow();
    }
    const text = await prom.render();
    expect(text).toContain('chainproxy_requests_total{endpoint="tx/list",cache="HIT",status_class="2xx"} 3');
    expect(text).not.toMatch(/chainproxy_request_duration_seconds_count\{endpoint="tx\/list"/);
  });
});
