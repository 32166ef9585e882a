/**
 * Interleaved rounds over several targets (a path on a server process each):
 * per round and target, a run as fast as answered (req/s) and a run at one
 * fixed offered load (server CPU per request, user + system from /proc /
 * requests; at equal load, since CPU per request falls as load rises). Order
 * alternates by round so machine noise hits every target alike; ratios are
 * taken per round, then their median.
 */
import { median } from './context.js';
import { runLoad, type LoadResult } from './load.js';
import { cpuSeconds } from './proc.js';

export interface RoundTarget {
  name: string;
  url: string;
  /** The server process whose CPU is measured. */
  pid: number | undefined;
  /** A path per request (a varying cache-buster), or always one. */
  sample: () => string;
}

export interface Round extends LoadResult {
  /** Server CPU µs per request at the fixed rate (NaN when /proc is not readable). */
  cpuUs: number;
}

export interface RoundsOptions {
  connections: number;
  durationS: number;
  rate: number;
  rounds: number;
  log?: (line: string) => void;
}

async function run(t: RoundTarget, o: RoundsOptions, rate?: number): Promise<{ r: LoadResult; cpuUs: number }> {
  const c0 = cpuSeconds(t.pid);
  const r = await runLoad({
    url: t.url,
    sample: t.sample,
    connections: o.connections,
    duration: o.durationS,
    ...(rate !== undefined ? { rate } : {}),
  });
  const c1 = cpuSeconds(t.pid);
  return { r, cpuUs: c0 === null || c1 === null || r.total === 0 ? NaN : ((c1 - c0) / r.total) * 1e6 };
}

/** Per target name, one result per round (after one warm-up run each). */
export async function interleaved(targets: readonly RoundTarget[], o: RoundsOptions): Promise<Map<string, Round[]>> {
  const out = new Map<string, Round[]>(targets.map((t) => [t.name, []]));
  for (const t of targets) await runLoad({ url: t.url, sample: t.sample, connections: o.connections, duration: 1 });
  for (let round = 0; round < o.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const max = await run(t, o);
      const fixed = await run(t, o, o.rate);
      out.get(t.name)!.push({ ...max.r, cpuUs: fixed.cpuUs });
    }
    const line = (t: RoundTarget): string => {
      const m = out.get(t.name)![round]!;
      return `${t.name} ${m.rps.toFixed(0)} req/s, ${m.cpuUs.toFixed(1)} µs/req`;
    };
    o.log?.(`round ${round + 1}/${o.rounds}: ${targets.map(line).join('; ')}`);
  }
  return out;
}

/** Median of the per-round ratios `pick(a) / pick(b)`, and the ratios. */
export function ratioOf(
  a: readonly Round[],
  b: readonly Round[],
  pick: (r: Round) => number,
): { median: number; perRound: number[] } {
  const perRound = a.map((r, i) => pick(r) / pick(b[i]!));
  return { median: median(perRound), perRound };
}
