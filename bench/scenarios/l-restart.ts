/**
 * (l) A rolling restart with a concurrent control: the oracle workload of (r) (150 req/s,
 * a block every 5 s ± 20 %, every answer judged) sent at once to two sides in front of one
 * chain, both behind nginx with the rolling-restart recipe of docs/operations.md
 * (bench/lib/fleet/restart.ts). In each round one side has every replica restarted in
 * place one after another (spaced, or back to back: readiness alone between them) and the
 * other, seeing the same blocks and the same requests at the same moments, is its
 * control; the window is the restart period itself (a short lead, the restarts, a tail).
 * Two designs: `halves` (one fleet of 6 on one Redis, each half of 3 behind its own nginx:
 * one leader, so both halves learn each block at the same moment) judges the stale
 * answers; `fleets` (two fleets of 3, each its own Redis and nginx) judges the upstream
 * requests, which halves sharing one Redis cannot tell apart. Windows measured one after
 * another differ by ± 10-25 % on their own, and two fleets' stale answers by tens of % (each
 * learns a block when its own leader probes): too much for a 5 % target.
 * Per plan, pooled over rounds: client errors, stale answers (halves) and upstream
 * requests (fleets) per 1000 of the restarted side over its control's, with a bootstrap
 * interval over rounds, and who gave the stale answers. `--restart-plain` runs the same on
 * the plain balancer (no retry on another replica) after it; `--restart-rounds N` rounds
 * per plan, `--restart-settle S` unmeasured seconds between rounds, `--restart-no-halves`
 * or `--restart-no-fleets` leaves a design out.
 */
import { FIELDS } from '../../src/config/fields.js';
import type { Ctx, Scenario } from '../lib/context.js';
import { median } from '../lib/context.js';
import { bootstrapInterval, pooledRatio, type PairCounts } from '../lib/fleet/paired-ratio.js';
import { runPaired, type Arm, type Design, type PairedRound } from '../lib/fleet/restart.js';
import { byAge, byAgeLine, pooled } from '../lib/fleet/young.js';
import { NGINX_BIN } from '../lib/nginx.js';
import { REDIS_BIN } from '../lib/redis.js';
import { staleByEndpoint, summarize, upstreamByEndpoint, upstreamSplit } from '../lib/oracle/summary.js';

const RATE = 150;
const BLOCK_MS = 5000;
const JITTER = 0.2;
const REPLICAS = 3;
/** The lame duck of the recipe, when this build has DRAIN_DELAY_MS. */
const DRAIN_DELAY_MS = 2000;
/** A new process's answers this long after its readiness are counted as a young replica's. */
const YOUNG_MS = 10_000;
const LEAD_S = 2;
/** Halves judge the stale answers, fleets the upstream requests (bench/lib/fleet/restart.ts). */
const DESIGNS: readonly Design[] = ['halves', 'fleets'];

const f1 = (v: number): string => v.toFixed(1);
const f2 = (v: number): string => v.toFixed(2);
const roundsOf = (n: number): string => `${n} round${n === 1 ? '' : 's'}`;

/** `--name N` or `--name=N` as a number, else `fallback`. */
function numberFlag(name: string, fallback: number): number {
  const argv = process.argv;
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return fallback;
  const raw = argv[i]!.includes('=') ? argv[i]!.slice(name.length + 1) : argv[i + 1];
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: a positive number, not ${raw}`);
  return n;
}

const judgedOf = (a: Arm): number => a.window.tally.requests - a.window.tally.errors;
const staleCounts = (p: PairedRound): PairCounts => ({
  restarted: { events: p.restarted.window.tally.stale, base: judgedOf(p.restarted) },
  control: { events: p.control.window.tally.stale, base: judgedOf(p.control) },
});
const upCounts = (p: PairedRound): PairCounts => ({
  restarted: { events: p.restarted.window.recorder.requests, base: p.restarted.window.tally.requests },
  control: { events: p.control.window.recorder.requests, base: p.control.window.tally.requests },
});

const sideName = (p: PairedRound): string => (p.design === 'halves' ? 'half' : 'fleet');

function row(ctx: Ctx, balancer: string, p: PairedRound, arm: Arm, restarted: boolean): void {
  const s = summarize(arm.window);
  const role = restarted ? 'restarted' : 'control';
  const t = arm.window.tally;
  const outages = p.restarts.map((x) => `${x.ready - x.sigterm} ms`).join(', ');
  ctx.rows.push({
    scenario: 'l rolling restart',
    target: `${balancer}, ${p.design}, ${p.plan.name} round ${p.round + 1}: ${sideName(p)} ${arm.fleet} ${role}`,
    rps: s.rps,
    p50: s.p50,
    p99: s.p99,
    hitRatio: s.hitRatio,
    upPer1000: s.upPer1000,
    note:
      `client errors ${t.errors}` +
      (t.dropped > 0 ? `, ${t.dropped} not sent (in-flight cap)` : '') +
      `; stale ${f1((t.stale / Math.max(1, judgedOf(arm))) * 1000)}/1000 (${t.stale}/${judgedOf(arm)}); ` +
      `upstream ${arm.window.recorder.requests}; ${t.requests} requests in ${f1(t.durationS)} s` +
      (restarted ? `; SIGTERM → ready again: ${outages}` : ''),
  });
}

/** The pooled ratio of a plan's rounds, its bootstrap interval and every round's pair. */
function ratio(ctx: Ctx, name: string, rounds: readonly PairCounts[], judged = true, why = ''): void {
  const value = pooledRatio(rounds);
  const ci = bootstrapInterval(rounds);
  const sum = (k: 'restarted' | 'control', f: 'events' | 'base'): number => rounds.reduce((a, p) => a + p[k][f], 0);
  const per1000 = (e: number, b: number): string => f1((e / Math.max(1, b)) * 1000);
  const pair = (p: PairCounts): string => {
    const r = pooledRatio([p]);
    const [a, b] = [p.restarted, p.control];
    return `${a.events}/${a.base} vs ${b.events}/${b.base} (${r === null ? '–' : f2(r)})`;
  };
  ctx.ratios.push({
    name,
    value,
    goal: judged ? '<= 1.05' : 'shown',
    pass: !judged || value === null ? null : value <= 1.05,
    detail:
      why +
      `pooled over ${roundsOf(rounds.length)}: ${per1000(sum('restarted', 'events'), sum('restarted', 'base'))} vs ` +
      `${per1000(sum('control', 'events'), sum('control', 'base'))} per 1000 ` +
      `(${sum('restarted', 'events')} vs ${sum('control', 'events')}); ` +
      `90 % interval (bootstrap over rounds, 1000×): ` +
      (ci === null ? '– (one round)' : `${f2(ci[0])}-${f2(ci[1])}`) +
      (ci !== null && rounds.length < 5 ? ` (${roundsOf(rounds.length)}: too few, the interval is too narrow)` : '') +
      '; ' +
      `per round, restarted vs control: ${rounds.map(pair).join('; ')}`,
  });
}

/** Median ms from the production of the first block a stale answer missed to the answer. */
function missedLine(arms: readonly Arm[]): string {
  const ms = arms.flatMap((a) => a.judged.flatMap((j) => (j.stale && j.missedMs !== null ? [j.missedMs] : [])));
  return ms.length === 0 ? '–' : `${f1(median(ms))} ms (${ms.length})`;
}

function report(ctx: Ctx, balancer: string, rounds: readonly PairedRound[]): void {
  for (const p of rounds) {
    row(ctx, balancer, p, p.restarted, true);
    row(ctx, balancer, p, p.control, false);
  }
  for (const plan of [...new Set(rounds.map((p) => p.plan.name))]) {
    const of = rounds.filter((p) => p.plan.name === plan);
    const design = of[0]!.design;
    const halves = design === 'halves';
    const young = pooled(of.map((p) => byAge(p.restarted.judged, p.restarts, YOUNG_MS)));
    const twin = pooled(of.map((p) => byAge(p.control.judged, p.mirrored, YOUNG_MS)));
    const upstream = halves
      ? ''
      : ` Upstream, round 1: restarted ${upstreamSplit(summarize(of[0]!.restarted.window))}; ` +
        `control ${upstreamSplit(summarize(of[0]!.control.window))}. Upstream by endpoint, round 1: restarted ` +
        `${upstreamByEndpoint(of[0]!.restarted.window)}; control ${upstreamByEndpoint(of[0]!.control.window)}.`;
    ctx.notes.push(
      `(l) ${balancer}, ${design}, restarts ${plan}, ${roundsOf(of.length)}: stale answers by who answered, ` +
        `restarted: ${byAgeLine(young, YOUNG_MS)}; controls: ${byAgeLine(twin, YOUNG_MS, true)}. ` +
        `A stale answer came this long after the block it missed (median): restarted ` +
        `${missedLine(of.map((p) => p.restarted))}, control ${missedLine(of.map((p) => p.control))}. ` +
        `Stale by endpoint, round 1: restarted ${staleByEndpoint(of[0]!.restarted.window)}; ` +
        `control ${staleByEndpoint(of[0]!.control.window)}.` +
        upstream,
    );
    if (balancer !== 'recipe') continue; // the plain balancer's errors are in its rows
    const tag = `l: rolling restart ${plan}, ${design}`;
    const errors = of.reduce((a, p) => a + p.restarted.window.tally.errors, 0);
    const control = of.reduce((a, p) => a + p.control.window.tally.errors, 0);
    const dropped = of.reduce((a, p) => a + p.restarted.window.tally.dropped + p.control.window.tally.dropped, 0);
    ctx.ratios.push({
      name: `${tag}, client errors of the restarted ${sideName(of[0]!)}`,
      value: errors,
      goal: '0',
      pass: errors === 0,
      detail:
        `${errors} 5xx or transport errors over ${roundsOf(of.length)}; the controls: ${control}` +
        (dropped > 0 ? `; ${dropped} not sent (the load generator's in-flight cap: a stall, not an answer)` : ''),
    });
    if (halves) ratio(ctx, `${tag}, stale answers per 1000 / control`, of.map(staleCounts));
    else {
      ratio(ctx, `${tag}, upstream per 1000 / control`, of.map(upCounts));
      ratio(
        ctx,
        `${tag}, stale answers per 1000 / control`,
        of.map(staleCounts),
        false,
        'judged by the halves design (two fleets learn each block when their own leaders probe: this ratio varies ' +
          'by tens of % from run to run); ',
      );
    }
  }
}

export const restart: Scenario = {
  id: 'l',
  title: 'a rolling restart of 3 replicas behind the recipe nginx against a concurrent control',
  async run(ctx: Ctx) {
    if (NGINX_BIN === null || REDIS_BIN === null) {
      ctx.notes.push(`(l) skipped: ${NGINX_BIN === null ? 'nginx' : 'redis-server'} not installed`);
      return;
    }
    const lameDuck = FIELDS.some((f) => f.env === 'DRAIN_DELAY_MS');
    const env: Record<string, string> = lameDuck ? { DRAIN_DELAY_MS: String(DRAIN_DELAY_MS) } : {};
    const spacingS = ctx.d(15, 5);
    const plans = [
      { name: 'back to back', spacingS: 0 },
      { name: `${spacingS} s apart`, spacingS },
    ];
    const common = {
      replicas: REPLICAS,
      blockIntervalMs: BLOCK_MS,
      jitter: JITTER,
      rate: RATE,
      warmS: ctx.d(60, 10),
      leadS: LEAD_S,
      tailS: ctx.d(10, 5),
      settleS: numberFlag('--restart-settle', ctx.d(30, 5)),
      rounds: numberFlag('--restart-rounds', ctx.d(8, 1)),
      plans,
      env,
    };
    ctx.notes.push(
      `(l) rolling restart with a concurrent control: ${RATE} req/s open loop, every request sent at once to two ` +
        `sides in front of one chain, blocks every ${BLOCK_MS / 1000} s ± ${JITTER * 100} %: design halves, one ` +
        `fleet of ${2 * REPLICAS} replicas on one redis-server, each half of ${REPLICAS} behind its own nginx (one ` +
        `leader: both halves learn each block at the same moment; the stale answers); design fleets, two fleets of ` +
        `${REPLICAS} replicas, each its own redis-server and nginx (the upstream requests). Each design: ` +
        `${common.warmS} s warm-up, then ${roundsOf(common.rounds)} per plan ` +
        `(${plans.map((p) => p.name).join(', ')}), the side restarted alternating, the other its control; a ` +
        `window runs from ${LEAD_S} s before the first SIGTERM to ${common.tailS} s after the last /readyz 200, ` +
        `${common.settleS} s unmeasured between rounds; ` +
        (lameDuck ? `DRAIN_DELAY_MS=${DRAIN_DELAY_MS}` : 'no DRAIN_DELAY_MS in this build') +
        `${ctx.quick ? '; --quick: a smoke run, figures not comparable' : ''}.`,
    );
    const balancers = process.argv.includes('--restart-plain') ? [true, false] : [true];
    const designs = DESIGNS.filter((d) => !process.argv.includes(`--restart-no-${d}`));
    for (const recipe of balancers)
      for (const design of designs) {
        const rounds = await runPaired({ ...common, design, recipe, log: (m) => ctx.log(`(l) ${m}`) });
        report(ctx, recipe ? 'recipe' : 'plain', rounds);
      }
  },
};
