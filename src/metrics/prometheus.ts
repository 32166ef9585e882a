/**
 * Prometheus exposition of the proxy: the `Metrics` push interface for the
 * components plus gauges pulled from `MetricSources` at scrape time (given
 * at creation, or by `pull` once the stages they read exist).
 *
 * Label values come only from bounded sets: catalogue endpoint names (anything
 * else becomes 'other'), fixed enums, and configured upstream names (capped).
 * The per-request families (`request()`, `upstreamSaved()`) are dense arrays
 * indexed by enum position, so a cache hit does no label hashing or allocation.
 * The metrics list with meanings is in ./README.md.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { VERSION } from '../config/version.js';
import { ENDPOINT_NAMES } from '../catalogue/types.js';
import { CallbackGauge, DenseCounter, DenseHistogram, type Labels } from './collectors.js';
import type { Metrics, MetricSources, RequestResult, TierName, UpstreamOutcome } from './types.js';
import { droppedLogLines } from '../common/log-destination.js';
import { STATUS_CLASSES, statusClassIndex } from './status-class.js';

export const METRIC_PREFIX = 'chainproxy_';
/**
 * Endpoint label values: the catalogue names plus 'other' (error envelopes
 * for any other path: unknown paths, streams, batch, passthrough).
 */
export const ENDPOINT_LABELS: readonly string[] = [...ENDPOINT_NAMES, 'other'];
const REQUEST_RESULTS: readonly RequestResult[] = ['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR'];
const TIER_NAMES: readonly TierName[] = ['memory', 'redis'];
const TIER_OPS = ['get', 'set', 'delete', 'publish'] as const;
/** Client latency: sub-millisecond memory hits up to 10 s cold misses. */
export const REQUEST_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
export const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Distinct upstream label values kept before further names collapse into 'other'. */
const MAX_UPSTREAM_LABELS = 32;

export interface PrometheusMetrics {
  metrics: Metrics;
  registry: Registry;
  contentType: string;
  render(): Promise<string>;
  /** Registers the gauges read from `sources` at scrape time (once). */
  pull(sources: MetricSources): void;
}

const N_ENDPOINTS = ENDPOINT_LABELS.length;
const N_RESULTS = REQUEST_RESULTS.length;
const N_CLASSES = STATUS_CLASSES.length;
const OTHER = N_ENDPOINTS - 1;
const ENDPOINT_INDEX = new Map<string, number>(ENDPOINT_LABELS.map((e, i) => [e, i]));
const RESULT_INDEX = new Map<string, number>(REQUEST_RESULTS.map((r, i) => [r, i]));
const ERROR_INDEX = N_RESULTS - 1;
const TIER_INDEX = new Map<string, number>(TIER_NAMES.map((t, i) => [t, i]));
const OP_INDEX = new Map<string, number>(TIER_OPS.map((o, i) => [o, i]));

/** Label value for an endpoint string: a catalogue name, else 'other'. */
function endpointLabel(endpoint: string): string {
  return ENDPOINT_INDEX.has(endpoint) ? endpoint : 'other';
}

function cross(...dims: Array<{ name: string; values: readonly string[] }>): Labels[] {
  let out: Labels[] = [{}];
  for (const dim of dims) out = out.flatMap((l) => dim.values.map((v) => ({ ...l, [dim.name]: v })));
  return out;
}

/**
 * prom-client's default process/runtime metrics, minus the gauges whose names
 * end in `_total` (nodejs_active_{handles,requests,resources}_total), which
 * `promtool check metrics` rejects; their per-type breakdowns remain.
 */
function registerDefaultMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const metric of registry.getMetricsAsArray()) {
    const m: { name: string; type: unknown } = metric;
    if (m.name.endsWith('_total') && m.type !== 'counter') registry.removeSingleMetric(m.name);
  }
}

/** `sources`: the scrape-time gauges at once; absent: they come with `pull`. */
export function createPrometheusMetrics(sources?: MetricSources): PrometheusMetrics {
  const registry = new Registry();
  registerDefaultMetrics(registry);
  const p = METRIC_PREFIX;
  const endpointDim = { name: 'endpoint', values: ENDPOINT_LABELS };
  const perEndpoint = cross(endpointDim);

  // --- pushed: client requests (hot path) -------------------------------
  const requests = new DenseCounter(
    `${p}requests_total`,
    'Client answers, by endpoint (other: error envelopes for any other path), HTTP ' +
      'status class and cache result: the X-Cache word (HIT, MISS, STALE, BYPASS, ERROR).',
    cross(endpointDim, { name: 'cache', values: REQUEST_RESULTS }, { name: 'status_class', values: STATUS_CLASSES }),
  ).register(registry);
  const requestDuration = new DenseHistogram(
    `${p}request_duration_seconds`,
    'Time from receiving a client request to sending the answer, by endpoint and cache result.',
    REQUEST_BUCKETS,
    cross(endpointDim, { name: 'cache', values: REQUEST_RESULTS }),
  ).register(registry);
  const saved = new DenseCounter(
    `${p}upstream_requests_saved_total`,
    'Client requests answered without an upstream request of their own (hit, stale, joined flight).',
    perEndpoint,
  ).register(registry);
  const joins = new DenseCounter(
    `${p}singleflight_joins_total`,
    'Requests that joined an upstream fetch already in flight for the same key.',
    perEndpoint,
  ).register(registry);
  const retries = new DenseCounter(
    `${p}upstream_retries_total`,
    'Upstream attempts retried after a failed attempt.',
    perEndpoint,
  ).register(registry);
  const hedges = new DenseCounter(
    `${p}upstream_hedges_total`,
    'Hedged upstream attempts started because the first one was slow.',
    perEndpoint,
  ).register(registry);
  const evictions = new DenseCounter(
    `${p}cache_evictions_total`,
    'Entries evicted from a cache tier to make room.',
    cross({ name: 'tier', values: TIER_NAMES }),
  ).register(registry);
  const tierErrors = new DenseCounter(
    `${p}cache_tier_errors_total`,
    'Failed operations on a cache tier, by operation.',
    cross({ name: 'tier', values: TIER_NAMES }, { name: 'op', values: TIER_OPS }),
  ).register(registry);
  new Gauge({
    name: `${p}build_info`,
    help: 'Always 1; the labels name this build: the package version and the Node.js version running it.',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: VERSION, node: process.version }, 1);
  const rateLimited = new Counter({
    name: `${p}rate_limited_total`,
    help: 'Client requests refused by the rate limiter.',
    registers: [registry],
  });
  new Counter({
    name: `${p}log_lines_dropped_total`,
    help: 'Log lines dropped because standard output (a pipe or socket) was not read fast enough or was closed.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });

  // --- pushed: upstream requests (per upstream fetch, not per hit) ------
  const upstreamRequests = new Counter({
    name: `${p}upstream_requests_total`,
    help: 'Upstream requests (attempts) by upstream, endpoint and outcome.',
    labelNames: ['upstream', 'endpoint', 'outcome'] as const,
    registers: [registry],
  });
  const upstreamBackground = new Counter({
    name: `${p}upstream_background_requests_total`,
    help:
      "The proxy's own upstream requests (attempts, head probes included) by purpose (probe, " +
      "block, pending, refresh): the x-chainproxy-purpose header; clients' misses are the rest.",
    labelNames: ['purpose'] as const,
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: `${p}upstream_request_duration_seconds`,
    help: 'Duration of upstream requests (attempts), by upstream and endpoint.',
    labelNames: ['upstream', 'endpoint'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });
  const upstreamNames = new Set<string>();
  const upstreamLabel = (name: string): string => {
    if (upstreamNames.has(name)) return name;
    if (upstreamNames.size >= MAX_UPSTREAM_LABELS) return 'other';
    upstreamNames.add(name);
    return name;
  };

  // --- pulled at scrape time --------------------------------------------
  const pull = (sources: MetricSources): void => {
    const gauge = (name: string, help: string, read: () => Array<{ labels: Labels; value: number }>) =>
      new CallbackGauge(`${p}${name}`, help, read).register(registry);
    const perUpstream = (pick: (u: ReturnType<MetricSources['upstreams']>[number]) => number | null) => () =>
      sources.upstreams().flatMap((u) => {
        const v = pick(u);
        return v === null ? [] : [{ labels: { upstream: upstreamLabel(u.name) }, value: v }];
      });
    const single = (v: number | null) => (v === null ? [] : [{ labels: {}, value: v }]);

    gauge('cache_entries', 'Entries held by a cache tier.', () =>
      sources.tiers().map((t) => ({ labels: { tier: t.tier }, value: t.entries })),
    );
    gauge('cache_bytes', 'Bytes held by a cache tier.', () =>
      sources.tiers().map((t) => ({ labels: { tier: t.tier }, value: t.bytes })),
    );
    gauge('cache_max_bytes', 'Configured capacity of a cache tier in bytes.', () =>
      sources
        .tiers()
        .flatMap((t) => (t.maxBytes === undefined ? [] : [{ labels: { tier: t.tier }, value: t.maxBytes }])),
    );
    gauge(
      'upstream_head',
      'Latest block height reported by an upstream.',
      perUpstream((u) => u.head),
    );
    gauge(
      'upstream_lag_blocks',
      'Blocks an upstream is behind the best head.',
      perUpstream((u) => u.lag),
    );
    gauge(
      'upstream_up',
      '1 when the upstream is healthy (probes succeed, breaker not open), else 0.',
      perUpstream((u) => (u.healthy ? 1 : 0)),
    );
    gauge(
      'upstream_lagging',
      '1 when the upstream is too far behind the best head to serve head-fresh requests, else 0.',
      perUpstream((u) => (u.lagging ? 1 : 0)),
    );
    gauge(
      'upstream_in_flight',
      'Upstream requests currently in flight.',
      perUpstream((u) => u.inFlight),
    );
    gauge(
      'upstream_breaker_state',
      'Circuit breaker state of an upstream: 1 for the current state, 0 for the others.',
      () =>
        sources.upstreams().flatMap((u) =>
          (['closed', 'open', 'half-open'] as const).map((state) => ({
            labels: { upstream: upstreamLabel(u.name), state },
            value: u.breaker === state ? 1 : 0,
          })),
        ),
    );
    gauge('chain_best_head', 'Highest block height the proxy trusts (monotonic).', () =>
      single(sources.chain.bestHead()),
    );
    gauge('chain_final_height', 'Highest block height seen final in upstream data.', () =>
      single(sources.chain.finalHeight()),
    );
    gauge('redis_up', '1 when the Redis cache tier is healthy, 0 when not; absent without a Redis tier.', () => {
      const h = sources.redisHealthy();
      return h === null ? [] : [{ labels: {}, value: h ? 1 : 0 }];
    });
  };
  if (sources !== undefined) pull(sources);

  const epIndex = (endpoint: string): number => ENDPOINT_INDEX.get(endpoint) ?? OTHER;

  const metrics: Metrics = {
    request(endpoint, status, result, seconds) {
      const series = epIndex(endpoint) * N_RESULTS + (RESULT_INDEX.get(result) ?? ERROR_INDEX);
      requests.inc(series * N_CLASSES + statusClassIndex(status));
      requestDuration.observe(series, seconds);
    },
    upstreamRequest(upstream: string, endpoint: string, outcome: UpstreamOutcome, seconds: number) {
      const ep = endpointLabel(endpoint);
      const up = upstreamLabel(upstream);
      upstreamRequests.inc({ upstream: up, endpoint: ep, outcome });
      if (seconds >= 0 && Number.isFinite(seconds)) upstreamDuration.observe({ upstream: up, endpoint: ep }, seconds);
    },
    upstreamBackground(purpose) {
      upstreamBackground.inc({ purpose });
    },
    upstreamRetry(endpoint) {
      retries.inc(epIndex(endpoint));
    },
    upstreamHedge(endpoint) {
      hedges.inc(epIndex(endpoint));
    },
    singleFlightJoin(endpoint) {
      joins.inc(epIndex(endpoint));
    },
    upstreamSaved(endpoint) {
      saved.inc(epIndex(endpoint));
    },
    cacheEviction(tier) {
      const t = TIER_INDEX.get(tier);
      if (t !== undefined) evictions.inc(t);
    },
    tierError(tier, op) {
      const t = TIER_INDEX.get(tier);
      const o = OP_INDEX.get(op);
      if (t !== undefined && o !== undefined) tierErrors.inc(t * TIER_OPS.length + o);
    },
    rateLimited() {
      rateLimited.inc();
    },
  };

  return { metrics, registry, contentType: registry.contentType, render: () => registry.metrics(), pull };
}
