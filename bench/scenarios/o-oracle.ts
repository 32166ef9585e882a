/**
 * (o) Truth oracle: the explorer workload (~150 req/s) through chainproxy in front of the
 * simulator, every answer compared with a second simulator (same seed and start time, advanced
 * in lockstep) at the heads the chain had while the request was in flight, volatile stamps and
 * link hosts aside. Per invalidation mode (`INVALIDATION_MODE` precise | head, each on its own
 * fresh stack, one after the other) and per block interval (5 s, and 1 s; ± 20 %): hit ratio,
 * upstream requests per 1000 split first / changed / unchanged / background (recording wrapper at
 * the upstream side), stale answers overall and per endpoint, most blocks behind, head detection
 * delay. Judged on a steady-state window: after a universe crawl and a warm-up outlasting the
 * safety max-age; the cold start of a fresh proxy is measured apart (5 s blocks).
 */
import type { Ctx, Scenario } from '../lib/context.js';
import { modeHonoured, runMode, type InvalidationMode, type ModeRun } from '../lib/oracle/mode.js';
import {
  endedLine,
  internalLine,
  staleByEndpoint,
  summarize,
  upstreamByEndpoint,
  upstreamSplit,
  type Summary,
} from '../lib/oracle/summary.js';

const RATE = 150;
const MODES: readonly InvalidationMode[] = ['precise', 'head'];
const INTERVALS = [5000, 1000];
/** Block intervals vary ± 20 %, so blocks fall at every phase of the proxy's 1 s head probe. */
const JITTER = 0.2;

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const ms = (v: number | null): string => (v === null ? '–' : `${v} ms`);

/**
 * Seconds of the cold window (5 s blocks only), the warm-up after the crawl, the measured window; block intervals run.
 */
interface Durations {
  coldS: number;
  warmS: number;
  durationS: number;
  intervals: readonly number[];
  /** `--oracle-spread`: the crawl spread over the warm-up (entry ages as in a long-running proxy). */
  spread: boolean;
  /**
   * `--oracle-crawl S`: the spread crawl over the warm-up's first S
   * seconds only (implies `--oracle-spread`), so bounds grow after it.
   */
  crawlS: number | null;
  /** the simulators pay internal transfers no block names; `--oracle-no-internal` turns it off */
  internal: boolean;
}

/** `--oracle-intervals 5000,1000`: the block intervals run (ms), among INTERVALS. */
function intervalsFlag(argv: readonly string[]): readonly number[] {
  const i = argv.findIndex((a) => a === '--oracle-intervals' || a.startsWith('--oracle-intervals='));
  if (i < 0) return INTERVALS;
  const raw = argv[i]!.includes('=') ? argv[i]!.slice('--oracle-intervals='.length) : (argv[i + 1] ?? '');
  const out = raw.split(',').map(Number);
  if (out.length === 0 || out.some((v) => !INTERVALS.includes(v)))
    throw new Error(
      `--oracle-intervals: a comma-separated subset of ${INTERVALS.join(',')} expected, got ${raw || 'nothing'}`,
    );
  return out;
}

/** Defaults per run length, each overridden by `--oracle-cold S`, `--oracle-warmup S`, `--oracle-window S`. */
function durations(argv: readonly string[], quick: boolean): Durations {
  const d = argv.includes('--long')
    ? { coldS: 60, warmS: 60, durationS: 300 }
    : quick
      ? { coldS: 10, warmS: 5, durationS: 15 }
      : { coldS: 60, warmS: 60, durationS: 60 };
  const flag = (name: string, min: number): number | null => {
    const i = argv.findIndex((a) => a === name || a.startsWith(name + '='));
    if (i < 0) return null;
    const raw = argv[i]!.includes('=') ? argv[i]!.slice(name.length + 1) : argv[i + 1];
    const v = Number(raw);
    if (raw === undefined || raw === '' || !Number.isFinite(v) || v < min)
      throw new Error(`${name}: seconds ≥ ${min} expected, got ${raw ?? 'nothing'}`);
    return v;
  };
  const crawlS = flag('--oracle-crawl', 1);
  return {
    coldS: flag('--oracle-cold', 0) ?? d.coldS,
    warmS: flag('--oracle-warmup', 0) ?? d.warmS,
    durationS: flag('--oracle-window', 1) ?? d.durationS,
    intervals: intervalsFlag(argv),
    spread: argv.includes('--oracle-spread') || crawlS !== null,
    crawlS,
    internal: !argv.includes('--oracle-no-internal'),
  };
}

function note(s: Summary): string {
  const noPurpose = s.backgroundByPurpose.length === 0;
  return [
    `stale ${pct(s.staleRatio)}, up to ${s.maxBehind ?? '>300'} blocks behind`,
    `unchanged refetches ${s.unchangedPer1000.toFixed(1)}/1000` +
      (noPurpose
        ? ` (${s.unchangedNoHeadPer1000.toFixed(1)} without block/max, whose probes carry no purpose on this build)`
        : ''),
    upstreamSplit(s),
    `head detection p50 ${ms(s.headDelayP50)}, max ${ms(s.headDelayMax)}`,
    `${s.requests} requests, ${s.blocks} blocks`,
  ].join('; ');
}

function runNotes(ctx: Ctx, target: string, run: ModeRun, d: Durations): void {
  const w = run.window;
  ctx.notes.push(`(o) ${target}: stale by endpoint: ${staleByEndpoint(w)}`);
  ctx.notes.push(`(o) ${target}: ${internalLine(w)}`);
  ctx.notes.push(
    `(o) ${target}: upstream requests by endpoint (first f, ` +
      `changed c, unchanged u, background b): ${upstreamByEndpoint(w)}`,
  );
  const ended = endedLine(w);
  if (ended !== null)
    ctx.notes.push(`(o) ${target}: the proxy's unchanged refetches by what ended the entry: ${ended}`);
  const c = run.crawl;
  ctx.notes.push(
    `(o) ${target}: crawl ${c.requests} paths in ` +
      `${c.seconds.toFixed(1)} s${c.errors > 0 ? ` (${c.errors} errors)` : ''}; first upstream ` +
      `requests per s by 10 s from the crawl's end: ${run.firstRate.map((r) => r.toFixed(1)).join(', ')}`,
  );
  if (d.warmS * 1000 < run.maxAgeMs)
    ctx.notes.push(
      `(o) ${target}: warm-up ${d.warmS} s < the safety max-age ${run.maxAgeMs / 1000} s: ` +
        'crawled entries may still be fresh in the window (not a steady state)',
    );
  if (run.cold !== null) {
    const s = summarize(run.cold);
    ctx.notes.push(
      `(o) ${target}: cold start (first ${d.coldS} s of a fresh proxy, ` +
        `before the crawl): hit ratio ${pct(s.hitRatio)}; ${note(s)}`,
    );
    const coldEnded = endedLine(run.cold);
    if (coldEnded !== null)
      ctx.notes.push(
        `(o) ${target}: cold start: the proxy's unchanged refetches by what ended the entry: ${coldEnded}`,
      );
  }
  const errs = w.tally.errors + w.tally.dropped;
  if (errs > 0)
    ctx.notes.push(
      `(o) ${target}: ${w.tally.errors} answers not judged (5xx or ` +
        `transport error), ${w.tally.dropped} not sent (in-flight cap)`,
    );
}

export const oracle: Scenario = {
  id: 'o',
  title: 'truth oracle: staleness and refetches, precise vs head invalidation',
  async run(ctx: Ctx) {
    const d = durations(process.argv, ctx.quick);
    const honoured = modeHonoured();
    ctx.notes.push(
      `(o) oracle: ${RATE} req/s open loop, block intervals ± ` +
        `${JITTER * 100} %; per mode and interval a fresh stack: ` +
        `simulators ${d.internal ? 'with' : 'without'} internal ` +
        `transfers; ${d.coldS} s cold window (5 s blocks only), ` +
        (d.spread
          ? `${d.warmS} s warm-up with the universe crawl spread over ` +
            (d.crawlS === null ? 'it' : `its first ${Math.min(d.crawlS, d.warmS)} s`)
          : `universe crawl, ${d.warmS} s warm-up`) +
        ', ' +
        `${d.durationS} s measured; ` +
        (honoured
          ? 'INVALIDATION_MODE known to this build.'
          : "INVALIDATION_MODE unknown to this build: both modes run today's rule (baseline)."),
    );
    for (const interval of d.intervals) {
      const runs = new Map<InvalidationMode, Summary>();
      for (const mode of MODES) {
        const coldS = interval === d.intervals[0] ? d.coldS : 0;
        const run = await runMode({
          mode,
          blockIntervalMs: interval,
          jitter: JITTER,
          coldS,
          warmS: d.warmS,
          durationS: d.durationS,
          spread: d.spread,
          ...(d.crawlS !== null ? { crawlS: d.crawlS } : {}),
          internalTransfers: d.internal,
          rate: RATE,
          log: (m) => ctx.log(`(o) ${m}`),
        });
        const s = summarize(run.window);
        runs.set(mode, s);
        const target = `${mode}${run.honoured ? '' : " (today's rule)"}, blocks ${interval / 1000} s`;
        ctx.rows.push({
          scenario: 'o truth oracle',
          target,
          rps: s.rps,
          p50: s.p50,
          p99: s.p99,
          hitRatio: s.hitRatio,
          upPer1000: s.upPer1000,
          note: note(s),
        });
        runNotes(ctx, target, run, { ...d, coldS });
      }
      if (interval !== 5000) continue;
      const p = runs.get('precise')!;
      const h = runs.get('head')!;
      const tag = `o: precise, blocks 5 s${honoured ? '' : " (today's rule on this build)"}, steady state`;
      ctx.ratios.push({
        name: `${tag}: stale answers`,
        value: p.staleRatio,
        goal: '<= 0.005',
        pass: p.staleRatio === null ? null : p.staleRatio <= 0.005,
        detail: `head rule ${pct(h.staleRatio)}`,
      });
      ctx.ratios.push({
        name: `${tag}: most blocks behind`,
        value: p.maxBehind,
        goal: '<= 1',
        pass: p.maxBehind !== null && p.maxBehind <= 1,
        detail: `head rule ${h.maxBehind ?? '>300'}`,
      });
      ctx.ratios.push({
        name: `${tag}: unchanged refetches per 1000 (client misses)`,
        value: p.unchangedPer1000,
        goal: '<= 5',
        pass: p.unchangedPer1000 <= 5,
        detail:
          `head rule ${h.unchangedPer1000.toFixed(1)}; background requests ` +
          `${p.backgroundPer1000.toFixed(1)}/1000 counted in upstream, not here`,
      });
      const ratio = p.upPer1000 / h.upPer1000;
      ctx.ratios.push({
        name: `${tag}: upstream per 1000 / head rule's`,
        value: ratio,
        goal: '<= 0.5',
        pass: ratio <= 0.5,
        detail:
          `${p.upPer1000.toFixed(1)} vs ${h.upPer1000.toFixed(1)} (first ` +
          `${p.firstPer1000.toFixed(1)} vs ${h.firstPer1000.toFixed(1)})`,
      });
    }
  },
};
