/** The figures of one oracle run, per 1000 client requests where it applies. */
import type { ModeRun } from './mode.js';
import { BEHIND_SEARCH } from './truth.js';

export interface Summary {
  requests: number;
  rps: number;
  hitRatio: number | null;
  upPer1000: number;
  staleRatio: number | null;
  /** most blocks behind over all stale answers; null when one matched no height searched */
  maxBehind: number | null;
  unchangedPer1000: number;
  /** the same without block/max (the head probes, unchanged between blocks by nature) */
  unchangedNoProbesPer1000: number;
  p50: number | null;
  p99: number | null;
  headDelayP50: number | null;
  headDelayMax: number | null;
  blocks: number;
}

const quantile = (xs: readonly number[], q: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export function summarize(r: ModeRun): Summary {
  const t = r.tally;
  const per1000 = (n: number): number => (t.requests === 0 ? NaN : (n / t.requests) * 1000);
  const probes = r.recorder.byEndpoint.get('block/max')?.[1] ?? 0;
  const judged = t.requests - t.errors;
  return {
    requests: t.requests,
    rps: t.requests / t.durationS,
    hitRatio: t.requests === 0 ? null : t.hits / t.requests,
    upPer1000: per1000(r.upstream),
    staleRatio: judged === 0 ? null : t.stale / judged,
    maxBehind: t.unmatched > 0 ? null : t.maxBehind,
    unchangedPer1000: per1000(r.recorder.unchanged),
    unchangedNoProbesPer1000: per1000(r.recorder.unchanged - probes),
    p50: quantile(t.latencies, 0.5),
    p99: quantile(t.latencies, 0.99),
    headDelayP50: quantile(t.headDelays, 0.5),
    headDelayMax: quantile(t.headDelays, 1),
    blocks: r.blocks,
  };
}

/** "endpoint stale/requests (max behind)" for endpoints with stale answers, worst share first. */
export function staleByEndpoint(r: ModeRun): string {
  const rows = [...r.tally.byEndpoint].filter(([, e]) => e.stale > 0).sort((a, b) => b[1].stale / b[1].requests - a[1].stale / a[1].requests);
  if (rows.length === 0) return 'none';
  return rows.map(([k, e]) => `${k} ${e.stale}/${e.requests} (${e.maxBehind === null ? `> ${BEHIND_SEARCH}` : `≤ ${e.maxBehind}`} behind)`).join(', ');
}

/** "endpoint unchanged/upstream requests" at the recorder, most unchanged first. */
export function unchangedByEndpoint(r: ModeRun): string {
  const rows = [...r.recorder.byEndpoint].filter(([, [, u]]) => u > 0).sort((a, b) => b[1][1] - a[1][1]);
  if (rows.length === 0) return 'none';
  return rows.map(([k, [n, u]]) => `${k} ${u}/${n}`).join(', ');
}
