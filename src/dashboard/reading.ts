/**
 * One reading of the registry for the status page's history: cumulative
 * counters, gauges and histogram buckets, summed over the labels the page
 * does not show. Taken once a second by the sampler, never on a request.
 */
import type { Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/table.js';

interface Sample {
  labels: Record<string, string | number | undefined>;
  value: number;
  metricName?: string;
}

export interface Buckets {
  /** Upper bounds, ascending, +Inf last. */
  le: number[];
  /** Cumulative counts per bound. */
  counts: number[];
}

export interface Reading {
  requests: number;
  hits: number;
  byStatus: Record<string, number>;
  shed: number;
  rateLimited: number;
  unknownKeys: number;
  streamsOpen: number;
  streamEvents: number;
  streamsRefused: number;
  passthrough: number;
  passthroughFailures: number;
  rebases: number;
  /** Requests (page parts, batch items) refused with 4292: miss budget spent. */
  missBudgetRefused: number;
  /** Quorum votes that found upstreams disagreeing (outcomes majority and disputed). */
  quorumDisputes: number;
  upstreamBuckets: Buckets;
  /** Per endpoint: requests, hits and latency buckets. */
  endpoints: Record<string, { requests: number; hits: number; buckets: Buckets }>;
  /** Per upstream: 1/0 gauges, attempts by outcome and times benched. */
  upstreams: Record<
    string,
    { up: number; lagging: number; breakerOpen: number; sitOuts: number; outcomes: Record<string, number> }
  >;
  /** 1 up, 0 down, null without a Redis tier. */
  redisUp: number | null;
}

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(`${METRIC_PREFIX}${name}`);
  if (metric === undefined) return [];
  return ((await metric.get()) as { values: Sample[] }).values;
}

const total = (list: Sample[]): number => list.reduce((a, s) => a + s.value, 0);
const emptyBuckets = (): Buckets => ({ le: [], counts: [] });

/** Adds the `_bucket` samples of a histogram into `into` (same bounds for every series). */
function addBuckets(into: Buckets, s: Sample): void {
  if (!(s.metricName ?? '').endsWith('_bucket')) return;
  const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
  let i = into.le.indexOf(le);
  if (i < 0) {
    i = into.le.findIndex((b) => b > le);
    if (i < 0) i = into.le.length;
    into.le.splice(i, 0, le);
    into.counts.splice(i, 0, 0);
  }
  into.counts[i] = (into.counts[i] ?? 0) + s.value;
}

/**
 * Reads the registry. The per-endpoint latency buckets are most of the cost
 * (one histogram per endpoint and cache result): read only `withEndpointBuckets`.
 */
export async function takeReading(registry: Registry, withEndpointBuckets: boolean): Promise<Reading> {
  const byStatus: Record<string, number> = {};
  const endpoints: Reading['endpoints'] = {};
  const endpoint = (name: string) => (endpoints[name] ??= { requests: 0, hits: 0, buckets: emptyBuckets() });
  let requests = 0;
  let hits = 0;
  // Every answer counted: the endpoints' (refusals included) and the pages' (as `pages/<name>`).
  const answers = [
    ...(await samples(registry, 'requests_total')).map((s) => ({ s, name: String(s.labels.endpoint) })),
    ...(await samples(registry, 'page_requests_total')).map((s) => ({ s, name: `pages/${String(s.labels.page)}` })),
  ];
  for (const { s, name } of answers) {
    const isHit = s.labels.cache === 'HIT' || s.labels.cache === 'STALE';
    requests += s.value;
    if (isHit) hits += s.value;
    byStatus[String(s.labels.status_class)] = (byStatus[String(s.labels.status_class)] ?? 0) + s.value;
    const e = endpoint(name);
    e.requests += s.value;
    if (isHit) e.hits += s.value;
  }
  if (withEndpointBuckets)
    for (const s of await samples(registry, 'request_duration_seconds'))
      addBuckets(endpoint(String(s.labels.endpoint)).buckets, s);
  const upstreamBuckets = emptyBuckets();
  for (const s of await samples(registry, 'upstream_request_duration_seconds')) addBuckets(upstreamBuckets, s);

  const upstreams: Reading['upstreams'] = {};
  const upstream = (name: string) =>
    (upstreams[name] ??= { up: 1, lagging: 0, breakerOpen: 0, sitOuts: 0, outcomes: {} });
  for (const s of await samples(registry, 'upstream_up')) upstream(String(s.labels.upstream)).up = s.value;
  for (const s of await samples(registry, 'upstream_lagging')) upstream(String(s.labels.upstream)).lagging = s.value;
  for (const s of await samples(registry, 'upstream_breaker_state'))
    if (s.labels.state === 'open') upstream(String(s.labels.upstream)).breakerOpen = s.value;
  for (const s of await samples(registry, 'upstream_requests_total')) {
    const o = upstream(String(s.labels.upstream)).outcomes;
    o[String(s.labels.outcome)] = (o[String(s.labels.outcome)] ?? 0) + s.value;
  }
  for (const s of await samples(registry, 'upstream_sit_outs_total'))
    upstream(String(s.labels.upstream)).sitOuts += s.value;
  let quorumDisputes = 0;
  for (const s of await samples(registry, 'quorum_votes_total'))
    if (s.labels.outcome === 'majority' || s.labels.outcome === 'disputed') quorumDisputes += s.value;
  const redis = await samples(registry, 'redis_up');
  return {
    requests,
    hits,
    byStatus,
    shed: total(await samples(registry, 'upstream_shed_total')),
    rateLimited: total(await samples(registry, 'rate_limited_total')),
    unknownKeys: total(await samples(registry, 'api_key_unknown_total')),
    streamsOpen: total(await samples(registry, 'stream_open')),
    streamEvents: total(await samples(registry, 'stream_events_sent_total')),
    streamsRefused: total(await samples(registry, 'stream_refused_total')),
    passthrough: total(await samples(registry, 'passthrough_requests_total')),
    passthroughFailures: total(await samples(registry, 'passthrough_failures_total')),
    rebases: total(await samples(registry, 'chain_head_rebases_total')),
    missBudgetRefused: total(await samples(registry, 'miss_budget_refused_total')),
    quorumDisputes,
    upstreamBuckets,
    endpoints,
    upstreams,
    redisUp: redis.length === 0 ? null : total(redis),
  };
}

/** The q-quantile of the observations between two cumulative bucket readings (Prometheus' interpolation), or null. */
export function bucketQuantile(q: number, now: Buckets, before: Buckets | null): number | null {
  const counts = now.counts.map((c, i) => c - (before?.counts[before.le.indexOf(now.le[i]!)] ?? 0));
  const n = counts[counts.length - 1] ?? 0;
  if (n <= 0) return null;
  const rank = q * n;
  for (let i = 0; i < counts.length; i++) {
    if ((counts[i] ?? 0) >= rank) {
      const hi = now.le[i]!;
      const lo = i === 0 ? 0 : now.le[i - 1]!;
      if (hi === Infinity) return lo;
      const below = i === 0 ? 0 : (counts[i - 1] ?? 0);
      const inBucket = (counts[i] ?? 0) - below;
      return inBucket <= 0 ? hi : lo + ((hi - lo) * (rank - below)) / inBucket;
    }
  }
  return null;
}
