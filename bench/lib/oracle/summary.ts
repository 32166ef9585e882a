/** The figures of one oracle window, per 1000 client requests where it applies. */
import type { Window } from './mode.js';
import { backgroundTotal, type Split } from './recorder.js';
import { BEHIND_SEARCH } from './truth.js';

export interface Summary {
  requests: number;
  rps: number;
  hitRatio: number | null;
  /** every upstream request: first + changed + unchanged + background */
  upPer1000: number;
  firstPer1000: number;
  changedPer1000: number;
  /** client-caused refetches returning what the proxy already had */
  unchangedPer1000: number;
  backgroundPer1000: number;
  /** per purpose: [requests, unchanged] per 1000 */
  backgroundByPurpose: Array<[string, number, number]>;
  /** client-caused unchanged without block/max (the head probes, while they carry no purpose) */
  unchangedNoHeadPer1000: number;
  staleRatio: number | null;
  /** most blocks behind over all stale answers; null when one matched no height searched */
  maxBehind: number | null;
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

export function summarize(w: Window): Summary {
  const t = w.tally;
  const r = w.recorder;
  const per1000 = (n: number): number => (t.requests === 0 ? NaN : (n / t.requests) * 1000);
  const headUnchanged = r.byEndpoint.get('block/max')?.unchanged ?? 0;
  const judged = t.requests - t.errors;
  return {
    requests: t.requests,
    rps: t.requests / t.durationS,
    hitRatio: t.requests === 0 ? null : t.hits / t.requests,
    upPer1000: per1000(r.requests),
    firstPer1000: per1000(r.first),
    changedPer1000: per1000(r.changed),
    unchangedPer1000: per1000(r.unchanged),
    backgroundPer1000: per1000(backgroundTotal(r)),
    backgroundByPurpose: [...r.background]
      .sort((a, b) => b[1].requests - a[1].requests)
      .map(([p, b]) => [p, per1000(b.requests), per1000(b.unchanged)]),
    unchangedNoHeadPer1000: per1000(r.unchanged - headUnchanged),
    staleRatio: judged === 0 ? null : t.stale / judged,
    maxBehind: t.unmatched > 0 ? null : t.maxBehind,
    p50: quantile(t.latencies, 0.5),
    p99: quantile(t.latencies, 0.99),
    headDelayP50: quantile(t.headDelays, 0.5),
    headDelayMax: quantile(t.headDelays, 1),
    blocks: w.blocks,
  };
}

const f1 = (v: number): string => v.toFixed(1);

/** "upstream/1000 = first + changed + unchanged + background (by purpose, unchanged among them)". */
export function upstreamSplit(s: Summary): string {
  const bg = s.backgroundByPurpose.map(([p, n, u]) => `${p} ${f1(n)} (${f1(u)} unchanged)`).join(', ');
  return (
    `upstream ${f1(s.upPer1000)}/1000 = first ${f1(s.firstPer1000)} + ` +
    `changed ${f1(s.changedPer1000)} + unchanged ${f1(s.unchangedPer1000)} + ` +
    `background ${f1(s.backgroundPer1000)}${bg === '' ? ' (no request carried x-chainproxy-purpose)' : ` (${bg})`}`
  );
}

/** "endpoint stale/requests (max behind)" for endpoints with stale answers, worst share first. */
export function staleByEndpoint(w: Window): string {
  const rows = [...w.tally.byEndpoint]
    .filter(([, e]) => e.stale > 0)
    .sort((a, b) => b[1].stale / b[1].requests - a[1].stale / a[1].requests);
  if (rows.length === 0) return 'none';
  return rows
    .map(
      ([k, e]) =>
        `${k} ${e.stale}/${e.requests} (${e.maxBehind === null ? `> ${BEHIND_SEARCH}` : `≤ ${e.maxBehind}`} behind)`,
    )
    .join(', ');
}

const splitOf = (s: Split): string => {
  const bg = backgroundTotal(s);
  return `${s.requests} = ${s.first} f + ${s.changed} c + ${s.unchanged} u${bg > 0 ? ` + ${bg} b` : ''}`;
};

/** "endpoint requests = first f + changed c + unchanged u + background b" at the recorder, most requests first. */
export function upstreamByEndpoint(w: Window): string {
  const rows = [...w.recorder.byEndpoint].sort((a, b) => b[1].requests - a[1].requests);
  if (rows.length === 0) return 'none';
  return rows.map(([k, s]) => `${k} ${splitOf(s)}`).join(', ');
}

/** The proxy's unchanged refetches by endpoint and what ended the entry each replaced, most first. */
export function endedLine(w: Window): string | null {
  if (w.ended === null) return null;
  const rows = Object.entries(w.ended)
    .map(([k, by]) => [k, Object.values(by).reduce((a, b) => a + b, 0), by] as const)
    .sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return 'none';
  const by = (o: Record<string, number>): string =>
    Object.entries(o)
      .map(([why, n]) => `${why} ${n}`)
      .join(', ');
  return rows.map(([k, n, o]) => `${k} ${n} (${by(o)})`).join('; ');
}

/** Internal transfers in the window, and the stale address/info answers they explain. */
export function internalLine(w: Window): string {
  if (w.internalCredits === null) return 'internal transfers off (--oracle-no-internal)';
  const e = w.tally.byEndpoint.get('address/info');
  return (
    `internal transfers: ${w.internalCredits} credits in ${w.blocks} ` +
    `blocks; address/info stale ${e?.stale ?? 0}/${e?.requests ?? 0}, ` +
    `${w.tally.staleCredited} of them of an address credited since the answer's height`
  );
}
