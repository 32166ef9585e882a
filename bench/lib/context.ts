/** What every scenario gets: durations, shared processes (started once, lazily), and the result sinks. */
import type { NginxProc } from './nginx.js';
import type { ProxyProc } from './proxy.js';
import type { Ratio, Row } from './results.js';
import type { SimProc } from './sim.js';

export interface Ctx {
  quick: boolean;
  /** seconds: `full` normally, `quick` with --quick */
  d(full: number, quick: number): number;
  blockIntervalMs: number;
  /** One simulator + one proxy in front of it, shared by scenarios (a)–(d). */
  proxyStack(): Promise<{ sim: SimProc; proxy: ProxyProc }>;
  /** Its own simulator (same seed and interval) + nginx, or null when nginx is not installed. */
  nginxStack(): Promise<{ sim: SimProc; nginx: NginxProc } | null>;
  rows: Row[];
  ratios: Ratio[];
  notes: string[];
  log(msg: string): void;
}

export interface Scenario {
  id: string;
  title: string;
  run(ctx: Ctx): Promise<void>;
}

/** The median of the finite values (NaN when there is none). */
export function median(xs: readonly number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Sum of totals over sum of durations, median of the percentiles: for repeated interleaved rounds. */
export function combine(
  rs: ReadonlyArray<{ rps: number; p50: number; p99: number; total: number; durationS: number }>,
): { rps: number; p50: number; p99: number; total: number } {
  const total = rs.reduce((a, r) => a + r.total, 0);
  const dur = rs.reduce((a, r) => a + r.durationS, 0);
  return { rps: total / dur, p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), total };
}
