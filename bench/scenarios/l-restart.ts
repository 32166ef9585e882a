/**
 * (l) A rolling restart: the oracle workload of (r) (150 req/s, a block every 5 s ± 20 %,
 * every answer judged) through nginx with the rolling-restart recipe of docs/operations.md
 * over 3 replicas sharing one redis-server (bench/lib/fleet/restart.ts): a window without
 * restarts, then every replica restarted in place one after another, spaced and back to back
 * (readiness alone between them): client errors, stale answers and upstream requests per 1000
 * against the window without restarts. `--restart-plain` runs the same on the plain balancer
 * (no retry on another replica) after it.
 */
import { FIELDS } from '../../src/config/fields.js';
import type { Ctx, Scenario } from '../lib/context.js';
import { runRestarts, type PlanWindow } from '../lib/fleet/restart.js';
import { NGINX_BIN } from '../lib/nginx.js';
import { REDIS_BIN } from '../lib/redis.js';
import { summarize } from '../lib/oracle/summary.js';

const RATE = 150;
const BLOCK_MS = 5000;
const JITTER = 0.2;
const REPLICAS = 3;
/** The lame duck of the recipe, when this build has DRAIN_DELAY_MS. */
const DRAIN_DELAY_MS = 2000;

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const f1 = (v: number): string => v.toFixed(1);

function report(ctx: Ctx, balancer: string, runs: readonly PlanWindow[]): void {
  const base = runs.find((r) => r.plan === null);
  const b = base === undefined ? null : summarize(base.window);
  for (const r of runs) {
    const s = summarize(r.window);
    const t = r.window.tally;
    const errors = t.errors;
    const name = r.plan === null ? 'no restart' : `restarts ${r.plan.name}`;
    ctx.rows.push({
      scenario: 'l rolling restart',
      target: `${REPLICAS} replicas, ${balancer}, ${name}`,
      rps: s.rps,
      p50: s.p50,
      p99: s.p99,
      hitRatio: s.hitRatio,
      upPer1000: s.upPer1000,
      note:
        `client errors ${errors} (${f1((errors / Math.max(1, t.requests)) * 1000)} per 1000)` +
        (t.dropped > 0 ? `, ${t.dropped} not sent (in-flight cap)` : '') +
        `; stale ` +
        `${pct(s.staleRatio)}; ${t.requests} requests in ${f1(t.durationS)} s` +
        (r.outages.length > 0 ? `; SIGTERM → ready again: ${r.outages.map((ms) => `${ms} ms`).join(', ')}` : ''),
    });
    if (r.plan === null || b === null || balancer !== 'recipe') continue;
    const tag = `l: rolling restart ${r.plan.name}`;
    ctx.ratios.push({
      name: `${tag}, client errors`,
      value: t.errors,
      goal: '0',
      pass: t.errors === 0,
      detail:
        `${t.errors} 5xx or transport errors` +
        (t.dropped > 0 ? `; ${t.dropped} not sent (the load generator's in-flight cap: a stall, not an answer)` : ''),
    });
    const up = s.upPer1000 / b.upPer1000;
    ctx.ratios.push({
      name: `${tag}, upstream per 1000 / without restarts`,
      value: up,
      goal: '<= 1.05',
      pass: up <= 1.05,
      detail: `${f1(s.upPer1000)} vs ${f1(b.upPer1000)}`,
    });
    const stale =
      s.staleRatio !== null && b.staleRatio !== null && b.staleRatio > 0 ? s.staleRatio / b.staleRatio : null;
    ctx.ratios.push({
      name: `${tag}, stale answers / without restarts`,
      value: stale,
      goal: '<= 1.05',
      pass: stale === null ? null : stale <= 1.05,
      detail: `${pct(s.staleRatio)} vs ${pct(b.staleRatio)}`,
    });
  }
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
      windowS: ctx.d(60, 20),
      tailS: ctx.d(10, 5),
      plans,
      env,
    };
    ctx.notes.push(
      `(l) rolling restart: ${RATE} req/s open loop through nginx over ${REPLICAS} replicas sharing one ` +
        `redis-server, blocks every ${BLOCK_MS / 1000} s ± ${JITTER * 100} %; ${common.warmS} s warm-up, then ` +
        `windows of at least ${common.windowS} s: none, each replica restarted in place (SIGTERM, exit, a new ` +
        `process on its port, /readyz 200) ${plans.map((p) => p.name).join(', then ')}; ` +
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
