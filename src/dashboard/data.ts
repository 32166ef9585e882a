/**
 * Counters the status page turns into rates: read from the shared Prometheus
 * registry at request time, so serving the page costs the hot path nothing.
 */
import type { Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/table.js';

export interface TrafficSnapshot {
  /** Server clock, ms. */
  time: number;
  /** Every answer counted: the endpoints (refusals included) and the pages. */
  requests: { total: number; byCache: Record<string, number>; byStatus: Record<string, number> };
  /** Upstream attempts by upstream and outcome. */
  upstreams: Record<string, Record<string, number>>;
  rateLimited: number;
  passthrough: { total: number; failures: number };
  /** Quorum votes by outcome (disputes: majority + disputed) and upstreams benched, by upstream. */
  consensus: { votes: Record<string, number>; sitOuts: Record<string, number> };
}

interface Sample {
  labels: Record<string, string | number | undefined>;
  value: number;
  metricName?: string;
}

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(`${METRIC_PREFIX}${name}`);
  if (metric === undefined) return [];
  const got = (await metric.get()) as { values: Sample[] };
  return got.values;
}

const add = (into: Record<string, number>, key: string, v: number): void => {
  into[key] = (into[key] ?? 0) + v;
};

export async function trafficSnapshot(registry: Registry, now: number = Date.now()): Promise<TrafficSnapshot> {
  const byCache: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const s of [
    ...(await samples(registry, 'requests_total')),
    ...(await samples(registry, 'page_requests_total')),
  ]) {
    total += s.value;
    add(byCache, String(s.labels.cache), s.value);
    add(byStatus, String(s.labels.status_class), s.value);
  }
  const upstreams: Record<string, Record<string, number>> = {};
  for (const s of await samples(registry, 'upstream_requests_total')) {
    const name = String(s.labels.upstream);
    add((upstreams[name] ??= {}), String(s.labels.outcome), s.value);
  }
  const votes: Record<string, number> = {};
  for (const s of await samples(registry, 'quorum_votes_total')) add(votes, String(s.labels.outcome), s.value);
  const sitOuts: Record<string, number> = {};
  for (const s of await samples(registry, 'upstream_sit_outs_total')) add(sitOuts, String(s.labels.upstream), s.value);
  const sum = (list: Sample[]): number => list.reduce((a, s) => a + s.value, 0);
  return {
    time: now,
    requests: { total, byCache, byStatus },
    upstreams,
    rateLimited: sum(await samples(registry, 'rate_limited_total')),
    passthrough: {
      total: sum(await samples(registry, 'passthrough_requests_total')),
      failures: sum(await samples(registry, 'passthrough_failures_total')),
    },
    consensus: { votes, sitOuts },
  };
}
