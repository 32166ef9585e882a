/**
 * Interleaved rounds of hits on several paths of one server process: per round
 * and path, a run as fast as answered (req/s) and a run at one fixed offered
 * load (server CPU per request, user + system from /proc / requests; at equal
 * load, since CPU per request falls as load rises). Order alternates by round
 * so machine noise hits every path alike.
 */
import { median } from './context.js';
import { runLoad, type LoadResult } from './load.js';
import { cpuSeconds } from './proc.js';

export interface HitTarget {
  name: string;
  /** A path per request (a varying cache-buster), or one path. */
  sample: () => string;
}

export interface HitRound extends LoadResult {
  /** Server CPU µs per request at the fixed rate (NaN when /proc is not readable). */
  cpuUs: number;
}

export interface HitRoundsOptions {
  url: string;
  pid: number | undefined;
  connections: number;
  durationS: number;
  rate: number;
  rounds: number;
  log?: (line: string) => void;
}

async function cpuRun(t: HitTarget, o: HitRoundsOptions, rate?: number): Promise<{ r: LoadResult; cpuUs: number }> {
  const c0 = cpuSeconds(o.pid);
  const r = await runLoad({
    url: o.url,
    sample: t.sample,
    connections: o.connections,
    duration: o.durationS,
    ...(rate !== undefined ? { rate } : {}),
  });
  const c1 = cpuSeconds(o.pid);
  return { r, cpuUs: c0 === null || c1 === null || r.total === 0 ? NaN : ((c1 - c0) / r.total) * 1e6 };
}

/** Per target name, one result per round. */
export async function hitRounds(targets: readonly HitTarget[], o: HitRoundsOptions): Promise<Map<string, HitRound[]>> {
  const out = new Map<string, HitRound[]>(targets.map((t) => [t.name, []]));
  for (const t of targets) await runLoad({ url: o.url, sample: t.sample, connections: o.connections, duration: 1 });
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const max = await cpuRun(t, o);
      const fixed = await cpuRun(t, o, o.rate);
      out.get(t.name)!.push({ ...max.r, cpuUs: fixed.cpuUs });
    }
    o.log?.(
      `round ${round + 1}/${o.rounds}: ` +
        targets.map((t) => `${t.name} ${out.get(t.name)![round]!.cpuUs.toFixed(1)} µs/req`).join(', '),
    );
  }
  return out;
}

/** Median of the per-round ratios of `a`'s CPU per request to `b`'s, and the ratios themselves. */
export function cpuRatio(a: readonly HitRound[], b: readonly HitRound[]): { median: number; perRound: number[] } {
  const perRound = a.map((r, i) => r.cpuUs / b[i]!.cpuUs);
  return { median: median(perRound), perRound };
}
