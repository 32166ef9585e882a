/**
 * (l) A rolling restart: the oracle workload of (r) (150 req/s, a block every 5 s ± 20 %,
 * every answer judged) through nginx with the rolling-restart recipe of docs/operations.md
 * over 3 replicas sharing one redis-server (bench/lib/fleet/restart.ts): rounds of windows,
 * one without restarts and one per plan (every replica restarted in place one after another,
 * spaced and back to back, readiness alone between them), their order rotated per round;
 * client errors, stale answers and upstream requests per 1000 of each restart window against
 * the window without restarts of its round (median over the rounds), and who gave the stale
 * answers (a new process young or not). `--restart-plain` runs the same on the plain balancer
 * (no retry on another replica) after it; `--restart-rounds N`, `--restart-window S`.
 */
import { FIELDS } from '../../src/config/fields.js';
import { median, type Ctx, type Scenario } from '../lib/context.js';
import { runRestarts, type PlanWindow } from '../lib/fleet/restart.js';
import { byAge, byAgeLine, pooled } from '../lib/fleet/young.js';
import { NGINX_BIN } from '../lib/nginx.js';
import { REDIS_BIN } from '../lib/redis.js';
import { staleByEndpoint, summarize } from '../lib/oracle/summary.js';

const RATE = 150;
const BLOCK_MS = 5000;
const JITTER = 0.2;
const REPLICAS = 3;
/** The lame duck of the recipe, when this build has DRAIN_DELAY_MS. */
const DRAIN_DELAY_MS = 2000;
/** A new process's answers this long after its readiness are counted as a young replica's. */
const YOUNG_MS = 10_000;

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const f1 = (v: number): string => v.toFixed(1);
const f2 = (v: number): string => v.toFixed(2);

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

function row(ctx: Ctx, balancer: string, r: PlanWindow): void {
  const s = summarize(r.window);
  const t = r.window.tally;
  const name = r.plan === null ? 'no restart' : `restarts ${r.plan.name}`;
  ctx.rows.push({
    scenario: 'l rolling restart',
    target: `${REPLICAS} replicas, ${balancer}, round ${r.round + 1}, ${name}`,
    rps: s.rps,
    p50: s.p50,
    p99: s.p99,
    hitRatio: s.hitRatio,
    upPer1000: s.upPer1000,
    note:
      `client errors ${t.errors} (${f1((t.errors / Math.max(1, t.requests)) * 1000)} per 1000)` +
      (t.dropped > 0 ? `, ${t.dropped} not sent (in-flight cap)` : '') +
      `; stale ${pct(s.staleRatio)} (${t.stale}); ${t.requests} requests in ${f1(t.durationS)} s` +
      (r.outages.length > 0 ? `; SIGTERM → ready again: ${r.outages.map((ms) => `${ms} ms`).join(', ')}` : ''),
  });
}

/** One plan's ratio per round (restart window / the round's window without restarts), median first. */
function ratio(
  ctx: Ctx,
  name: string,
  pairs: ReadonlyArray<[PlanWindow, PlanWindow]>,
  of: (w: PlanWindow) => number | null,
  show: (v: number) => string,
): void {
  const each = pairs.map(([b, r]) => {
    const vb = of(b);
    const vr = of(r);
    return vb === null || vr === null || vb === 0 ? null : vr / vb;
  });
  const known = each.filter((v): v is number => v !== null);
  const m = known.length === 0 ? null : median(known);
  const rounds = pairs.map(([b, r], i) => `${show(of(r) ?? NaN)} vs ${show(of(b) ?? NaN)} (${f2(each[i] ?? NaN)})`);
  ctx.ratios.push({
    name,
    value: m,
    goal: '<= 1.05',
    pass: m === null ? null : m <= 1.05,
    detail:
      `median of ${known.length} rounds` +
      (known.length > 0 ? `, range ${f2(Math.min(...known))}-${f2(Math.max(...known))}` : '') +
      `; per round: ${rounds.join('; ')}`,
  });
}

function report(ctx: Ctx, balancer: string, runs: readonly PlanWindow[]): void {
  for (const r of runs) row(ctx, balancer, r);
  const bases = runs.filter((r) => r.plan === null);
  const plans = [...new Set(runs.flatMap((r) => (r.plan === null ? [] : [r.plan.name])))];
  const stale = (w: PlanWindow): number | null => summarize(w.window).staleRatio;
  const up = (w: PlanWindow): number => summarize(w.window).upPer1000;
  for (const plan of plans) {
    const windows = runs.filter((r) => r.plan?.name === plan);
    const pairs = windows.flatMap((r) => {
      const b = bases.find((x) => x.round === r.round);
      return b === undefined ? [] : [[b, r] as [PlanWindow, PlanWindow]];
    });
    const ages = pooled(windows.map((w) => byAge(w.judged, w.readied, YOUNG_MS)));
    ctx.notes.push(
      `(l) ${balancer}, restarts ${plan}: stale answers by who answered, over ${windows.length} rounds: ` +
        `${byAgeLine(ages, YOUNG_MS)}; stale by endpoint, round 1: ${staleByEndpoint(windows[0]!.window)}.`,
    );
    if (balancer !== 'recipe') continue;
    const tag = `l: rolling restart ${plan}`;
    const errors = windows.reduce((a, w) => a + w.window.tally.errors, 0);
    const dropped = windows.reduce((a, w) => a + w.window.tally.dropped, 0);
    ctx.ratios.push({
      name: `${tag}, client errors`,
      value: errors,
      goal: '0',
      pass: errors === 0,
      detail:
        `${errors} 5xx or transport errors over ${windows.length} rounds` +
        (dropped > 0 ? `; ${dropped} not sent (the load generator's in-flight cap: a stall, not an answer)` : ''),
    });
    ratio(ctx, `${tag}, upstream per 1000 / without restarts`, pairs, up, f1);
    ratio(ctx, `${tag}, stale answers / without restarts`, pairs, stale, (v) => pct(Number.isNaN(v) ? null : v));
  }
  if (bases.length > 0)
    ctx.notes.push(`(l) ${balancer}, no restart, round 1: stale by endpoint ${staleByEndpoint(bases[0]!.window)}.`);
}

export const restart: Scenario = {
  id: 'l',
  title: 'a rolling restart of 3 replicas behind the recipe nginx, spaced and back to back, under the oracle workload',
  async run(ctx: Ctx) {
    if (NGINX_BIN === null || REDIS_BIN === null) {
      ctx.notes.push(`(l) skipped: ${NGINX_BIN === null ? 'nginx' : 'redis-server'} not installed`);
      return;
    }
    const lameDuck = FIELDS.some((f) => f.env === 'DRAIN_DELAY_MS');
    const env: Record<string, string> = lameDuck ? { DRAIN_DELAY_MS: String(DRAIN_DELAY_MS) } : {};
    const spacingS = ctx.d(15, 5);
    const plans = [
      { name: `${spacingS} s apart`, spacingS },
      { name: 'back to back', spacingS: 0 },
    ];
    const common = {
      replicas: REPLICAS,
      blockIntervalMs: BLOCK_MS,
      jitter: JITTER,
      rate: RATE,
      warmS: ctx.d(60, 10),
      windowS: numberFlag('--restart-window', ctx.d(60, 20)),
      tailS: ctx.d(10, 5),
      rounds: numberFlag('--restart-rounds', ctx.d(3, 1)),
      plans,
      env,
    };
    ctx.notes.push(
      `(l) rolling restart: ${RATE} req/s open loop through nginx over ${REPLICAS} replicas sharing one ` +
        `redis-server, blocks every ${BLOCK_MS / 1000} s ± ${JITTER * 100} %; ${common.warmS} s warm-up, then ` +
        `${common.rounds} rounds of windows of at least ${common.windowS} s, their order rotated per round: none, ` +
        `each replica restarted in place (SIGTERM, exit, a new process on its port, /readyz 200) ` +
        `${plans.map((p) => p.name).join(', ')}; each restart window against its round's window without; ` +
        (lameDuck ? `DRAIN_DELAY_MS=${DRAIN_DELAY_MS}` : 'no DRAIN_DELAY_MS in this build') +
        `${ctx.quick ? '; --quick: a smoke run, figures not comparable' : ''}.`,
    );
    const balancers = process.argv.includes('--restart-plain') ? [true, false] : [true];
    for (const recipe of balancers) {
      const runs = await runRestarts({ ...common, recipe, log: (m) => ctx.log(`(l) ${m}`) });
      report(ctx, recipe ? 'recipe' : 'plain', runs);
    }
  },
};
