/**
 * Prometheus exposition of the proxy: the `Metrics` push interface for the
 * components plus gauges pulled from `MetricSources` at scrape time (given
 * at creation, or by `pull` once the stages they read exist).
 *
 * Label values come only from bounded sets: catalogue endpoint names (anything
 * else becomes 'other'), fixed enums, and configured upstream names (capped).
 * The per-request families (`request()`, `upstreamSaved()`) are dense arrays
 * indexed by enum position, so a cache hit does no label hashing or allocation.
 * Every family's name, labels and help are rows of ./table.ts.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import { VERSION } from '../config/version.js';
import { ENDPOINT_NAMES } from '../catalogue/types.js';
import type { Labels } from './collectors.js';
import { callbackGauge, counter, denseCounter, denseHistogram, gauge, histogram } from './declare.js';
import { METRICS } from './table.js';
import type { Metrics, MetricSources, RequestResult, TierName, UpstreamOutcome } from './types.js';
import { droppedLogLines } from '../common/log-destination.js';
import { STATUS_CLASSES, statusClassIndex } from './status-class.js';

/**
 * Endpoint label values: the catalogue names plus 'other' (error envelopes
 * for any other path: unknown paths, streams, batch, passthrough).
 */
export const ENDPOINT_LABELS: readonly string[] = [...ENDPOINT_NAMES, 'other'];
const REQUEST_RESULTS: readonly RequestResult[] = ['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR'];
const TIER_NAMES: readonly TierName[] = ['memory', 'redis'];
const TIER_OPS = ['get', 'set', 'delete', 'publish'] as const;
/** Client latency buckets (their row in ./table.ts). */
export const REQUEST_BUCKETS = METRICS.request_duration_seconds.buckets;
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

/** Every combination of the dimensions' values, as label sets. */
function cross<N extends string>(...dims: Array<{ name: N; values: readonly string[] }>): Array<Record<N, string>> {
  let out: Labels[] = [{}];
  for (const dim of dims) out = out.flatMap((l) => dim.values.map((v) => ({ ...l, [dim.name]: v })));
  return out as Array<Record<N, string>>;
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
  const endpointDim = { name: 'endpoint' as const, values: ENDPOINT_LABELS };
  const perEndpoint = cross(endpointDim);

  // --- pushed: client requests (hot path) -------------------------------
  const requests = denseCounter(
    registry,
    'requests_total',
    cross(endpointDim, { name: 'cache', values: REQUEST_RESULTS }, { name: 'status_class', values: STATUS_CLASSES }),
  );
  const requestDuration = denseHistogram(
    registry,
    'request_duration_seconds',
    cross(endpointDim, { name: 'cache', values: REQUEST_RESULTS }),
  );
  const saved = denseCounter(registry, 'upstream_requests_saved_total', perEndpoint);
  const joins = denseCounter(registry, 'singleflight_joins_total', perEndpoint);
  const retries = denseCounter(registry, 'upstream_retries_total', perEndpoint);
  const hedges = denseCounter(registry, 'upstream_hedges_total', perEndpoint);
  const evictions = denseCounter(registry, 'cache_evictions_total', cross({ name: 'tier', values: TIER_NAMES }));
  const tierErrors = denseCounter(
    registry,
    'cache_tier_errors_total',
    cross({ name: 'tier', values: TIER_NAMES }, { name: 'op', values: TIER_OPS }),
  );
  gauge(registry, 'build_info').set({ version: VERSION, node: process.version }, 1);
  const rateLimited = counter(registry, 'rate_limited_total');
  counter(registry, 'log_lines_dropped_total', { total: droppedLogLines });

  // --- pushed: upstream requests (per upstream fetch, not per hit) ------
  const upstreamRequests = counter(registry, 'upstream_requests_total');
  const upstreamBackground = counter(registry, 'upstream_background_requests_total');
  const upstreamDuration = histogram(registry, 'upstream_request_duration_seconds');
  const upstreamNames = new Set<string>();
  const upstreamLabel = (name: string): string => {
    if (upstreamNames.has(name)) return name;
    if (upstreamNames.size >= MAX_UPSTREAM_LABELS) return 'other';
    upstreamNames.add(name);
    return name;
  };

  // --- pulled at scrape time --------------------------------------------
  const pull = (sources: MetricSources): void => {
    const perUpstream = (pick: (u: ReturnType<MetricSources['upstreams']>[number]) => number | null) => () =>
      sources.upstreams().flatMap((u) => {
        const v = pick(u);
        return v === null ? [] : [{ labels: { upstream: upstreamLabel(u.name) }, value: v }];
      });
    const single = (v: number | null) => (v === null ? [] : [{ labels: {}, value: v }]);

    callbackGauge(registry, 'cache_entries', () =>
      sources.tiers().map((t) => ({ labels: { tier: t.tier }, value: t.entries })),
    );
    callbackGauge(registry, 'cache_bytes', () =>
      sources.tiers().map((t) => ({ labels: { tier: t.tier }, value: t.bytes })),
    );
    callbackGauge(registry, 'cache_max_bytes', () =>
      sources
        .tiers()
        .flatMap((t) => (t.maxBytes === undefined ? [] : [{ labels: { tier: t.tier }, value: t.maxBytes }])),
    );
    callbackGauge(
      registry,
      'upstream_head',
      perUpstream((u) => u.head),
    );
    callbackGauge(
      registry,
      'upstream_lag_blocks',
      perUpstream((u) => u.lag),
    );
    callbackGauge(
      registry,
      'upstream_up',
      perUpstream((u) => (u.healthy ? 1 : 0)),
    );
    callbackGauge(
      registry,
      'upstream_lagging',
      perUpstream((u) => (u.lagging ? 1 : 0)),
    );
    callbackGauge(
      registry,
      'upstream_in_flight',
      perUpstream((u) => u.inFlight),
    );
    callbackGauge(registry, 'upstream_breaker_state', () =>
      sources.upstreams().flatMap((u) =>
        (['closed', 'open', 'half-open'] as const).map((state) => ({
          labels: { upstream: upstreamLabel(u.name), state },
          value: u.breaker === state ? 1 : 0,
        })),
      ),
    );
    callbackGauge(registry, 'chain_best_head', () => single(sources.chain.bestHead()));
    callbackGauge(registry, 'chain_final_height', () => single(sources.chain.finalHeight()));
    callbackGauge(registry, 'redis_up', () => {
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
