/**
 * (o) Truth oracle: the explorer workload (~150 req/s) through chainproxy in front of the
 * simulator, every answer compared with a second simulator (same seed and start time, advanced
 * in lockstep) at the heads the chain had while the request was in flight, volatile stamps and
 * link hosts aside. Per invalidation mode (`INVALIDATION_MODE` precise | head, each on its own
 * fresh stack, one after the other) and per block interval (5 s, and 1 s; ± 20 %): hit ratio, upstream
 * requests per 1000 (at the simulator, probes included), stale answers overall and per endpoint,
 * most blocks behind, unchanged refetches per 1000 (recording wrapper at the upstream side),
 * head detection delay. Default ≤ 60 s per mode; `--quick` 25 s; `--long` 5 min.
 */
import type { Ctx, Scenario } from '../lib/context.js';
import { modeHonoured, runMode, type InvalidationMode, type ModeRun } from '../lib/oracle/mode.js';
import { staleByEndpoint, summarize, unchangedByEndpoint, type Summary } from '../lib/oracle/summary.js';

const RATE = 150;
const MODES: readonly InvalidationMode[] = ['precise', 'head'];
const INTERVALS = [5000, 1000];
/** Block intervals vary ± 20 %, so blocks fall at every phase of the proxy's 1 s head probe. */
const JITTER = 0.2;

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const ms = (v: number | null): string => (v === null ? '–' : `${v} ms`);

function note(s: Summary): string {
  return [
    `stale ${pct(s.staleRatio)}, up to ${s.maxBehind ?? '>300'} blocks behind`,
    `unchanged refetches ${s.unchangedPer1000.toFixed(1)}/1000 (${s.unchangedNoProbesPer1000.toFixed(1)} without block/max)`,
    `head detection p50 ${ms(s.headDelayP50)}, max ${ms(s.headDelayMax)}`,
    `${s.requests} requests, ${s.blocks} blocks`,
  ].join('; ');
}

export const oracle: Scenario = {
  id: 'o',
  title: 'truth oracle: staleness and refetches, precise vs head invalidation',
  async run(ctx: Ctx) {
    const long = process.argv.includes('--long');
    const [warmS, durationS] = long ? [30, 300] : ctx.quick ? [5, 20] : [10, 50];
    const honoured = modeHonoured();
    ctx.notes.push(
      `(o) oracle: ${RATE} req/s open loop, block intervals ± ${JITTER * 100} %, ${warmS} s warm-up + ${durationS} s measured per mode and interval; ` +
        (honoured ? 'INVALIDATION_MODE known to this build.' : 'INVALIDATION_MODE unknown to this build: both modes run today\'s rule (baseline).'),
    );
    for (const interval of INTERVALS) {
      const runs = new Map<InvalidationMode, { run: ModeRun; s: Summary }>();
      for (const mode of MODES) {
        const run = await runMode({ mode, blockIntervalMs: interval, jitter: JITTER, warmS, durationS, rate: RATE, log: (m) => ctx.log(`(o) ${m}`) });
        const s = summarize(run);
        runs.set(mode, { run, s });
        const target = `${mode}${run.honoured ? '' : ' (today\'s rule)'}, blocks ${interval / 1000} s`;
        ctx.rows.push({ scenario: 'o truth oracle', target, rps: s.rps, p50: s.p50, p99: s.p99, hitRatio: s.hitRatio, upPer1000: s.upPer1000, note: note(s) });
        ctx.notes.push(`(o) ${target}: stale by endpoint: ${staleByEndpoint(run)}`);
        ctx.notes.push(`(o) ${target}: unchanged refetches / upstream requests by endpoint: ${unchangedByEndpoint(run)}`);
        const errs = run.tally.errors + run.tally.dropped;
        if (errs > 0) ctx.notes.push(`(o) ${target}: ${run.tally.errors} answers not judged (5xx or transport error), ${run.tally.dropped} not sent (in-flight cap)`);
      }
      if (interval !== 5000) continue;
      const p = runs.get('precise')!.s;
      const h = runs.get('head')!.s;
      const tag = `o: precise, blocks 5 s${honoured ? '' : ' (today\'s rule on this build)'}`;
      ctx.ratios.push({ name: `${tag}: stale answers`, value: p.staleRatio, goal: '<= 0.005', pass: p.staleRatio === null ? null : p.staleRatio <= 0.005, detail: `head rule ${pct(h.staleRatio)}` });
      ctx.ratios.push({ name: `${tag}: most blocks behind`, value: p.maxBehind, goal: '<= 1', pass: p.maxBehind !== null && p.maxBehind <= 1, detail: `head rule ${h.maxBehind ?? '>300'}` });
      ctx.ratios.push({ name: `${tag}: unchanged refetches per 1000`, value: p.unchangedPer1000, goal: '<= 5', pass: p.unchangedPer1000 <= 5, detail: `head rule ${h.unchangedPer1000.toFixed(1)}` });
      const ratio = p.upPer1000 / h.upPer1000;
      ctx.ratios.push({ name: `${tag}: upstream per 1000 / head rule's`, value: ratio, goal: '<= 0.5', pass: ratio <= 0.5, detail: `${p.upPer1000.toFixed(1)} vs ${h.upPer1000.toFixed(1)}` });
    }
  },
};
