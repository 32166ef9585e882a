/**
 * (r) A fleet behind a balancer: the oracle's explorer workload (150 req/s, a block every 5 s
 * ± 20 %, every answer judged against the truth) through nginx round-robin over 1, 2 and 3
 * replicas sharing one redis-server, each size on a fresh stack (bench/lib/fleet/run.ts):
 * upstream requests per 1000 client requests (by class and purpose, and by endpoint), stale
 * answers, hits; an idle fleet's upstream requests per minute by endpoint and purpose; the time
 * from a block to every replica serving it (p50/p99), and from the first replica serving it to
 * the last. `--quick`: a smoke run (no crawl, short phases); each phase selectable.
 */
import type { Ctx, Scenario } from '../lib/context.js';
import { runFleet, type FleetRun } from '../lib/fleet/run.js';
import { quantile } from '../lib/fleet/propagation.js';
import { NGINX_BIN } from '../lib/nginx.js';
import { REDIS_BIN } from '../lib/redis.js';
import { backgroundTotal, type RecorderCounts } from '../lib/oracle/recorder.js';
import { staleByEndpoint, summarize, upstreamByEndpoint, upstreamSplit, type Summary } from '../lib/oracle/summary.js';

const RATE = 150;
const BLOCK_MS = 5000;
const JITTER = 0.2;

interface Durations {
  sizes: number[];
  crawl: boolean;
  warmS: number;
  windowS: number;
  idleS: number;
  propagationS: number;
}

function flag(argv: readonly string[], name: string): string | null {
  const i = argv.findIndex((a) => a === name || a.startsWith(name + '='));
  if (i < 0) return null;
  return argv[i]!.includes('=') ? argv[i]!.slice(name.length + 1) : (argv[i + 1] ?? '');
}

function seconds(argv: readonly string[], name: string, fallback: number, min: number): number {
  const raw = flag(argv, name);
  if (raw === null) return fallback;
  const v = Number(raw);
  if (raw === '' || !Number.isFinite(v) || v < min)
    throw new Error(`${name}: seconds ≥ ${min} expected, got ${raw || 'nothing'}`);
  return v;
}

/** Defaults per run length (`--quick`: a smoke run), each overridden by its `--fleet-*` flag. */
function durations(argv: readonly string[], quick: boolean): Durations {
  const d = quick
    ? { warmS: 5, windowS: 15, idleS: 15, propagationS: 15 }
    : { warmS: 60, windowS: 60, idleS: 60, propagationS: 60 };
  const raw = flag(argv, '--fleet-sizes');
  const sizes = raw === null ? [1, 2, 3] : raw.split(',').map(Number);
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 8))
    throw new Error(`--fleet-sizes: a comma-separated list of 1..8 expected, got ${raw ?? ''}`);
  return {
    sizes,
    crawl: quick ? argv.includes('--fleet-crawl') : !argv.includes('--fleet-no-crawl'),
    warmS: seconds(argv, '--fleet-warmup', d.warmS, 0),
    windowS: seconds(argv, '--fleet-window', d.windowS, 1),
    idleS: seconds(argv, '--fleet-idle', d.idleS, 1),
    propagationS: seconds(argv, '--fleet-propagation', d.propagationS, 1),
  };
}

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const ms = (v: number | null): string => (v === null ? '–' : `${Math.round(v)} ms`);
const f1 = (v: number): string => v.toFixed(1);

/** Upstream requests per minute of an idle window: total, then by endpoint (the proxy's own by purpose). */
function idleLine(c: RecorderCounts, idleS: number): { perMin: number; line: string } {
  const perMin = (n: number): number => (n * 60) / idleS;
  const rows = [...c.byEndpoint]
    .sort((a, b) => b[1].requests - a[1].requests)
    .map(([endpoint, s]) => {
      const bg = [...s.background].map(([p, b]) => `${p} ${f1(perMin(b.requests))}`).join(', ');
      const client = s.requests - backgroundTotal(s);
      const noPurpose = client > 0 ? `, no purpose ${f1(perMin(client))}` : '';
      return `${endpoint} ${f1(perMin(s.requests))}${bg === '' ? '' : ` (${bg}${noPurpose})`}`;
    });
  return { perMin: perMin(c.requests), line: rows.length === 0 ? 'none' : rows.join(', ') };
}

interface Sized {
  n: number;
  s: Summary;
  idlePerMin: number;
  p50: number | null;
  p99: number | null;
  firstP50: number | null;
  firstP99: number | null;
}

function report(ctx: Ctx, n: number, run: FleetRun, d: Durations): Sized {
  const s = summarize(run.window);
  const idle = idleLine(run.idle, d.idleS);
  const p = run.propagation;
  const sized: Sized = {
    n,
    s,
    idlePerMin: idle.perMin,
    p50: quantile(p.fromBlock, 0.5),
    p99: quantile(p.fromBlock, 0.99),
    firstP50: quantile(p.fromFirst, 0.5),
    firstP99: quantile(p.fromFirst, 0.99),
  };
  const target = `${n} replica${n === 1 ? '' : 's'} behind nginx, one Redis`;
  ctx.rows.push({
    scenario: 'r fleet',
    target,
    rps: s.rps,
    p50: s.p50,
    p99: s.p99,
    hitRatio: s.hitRatio,
    upPer1000: s.upPer1000,
    note:
      `stale ${pct(s.staleRatio)}; ${upstreamSplit(s)}; idle ${f1(idle.perMin)} upstream req/min; ` +
      `block → every replica p50 ${ms(sized.p50)}, p99 ${ms(sized.p99)} (first replica → ` +
      `last p50 ${ms(sized.firstP50)}, p99 ${ms(sized.firstP99)}; ${p.fromBlock.length} blocks)`,
  });
  ctx.notes.push(
    `(r) ${target}: upstream requests by endpoint (first f, changed c, ` +
      `unchanged u, background b): ${upstreamByEndpoint(run.window)}`,
  );
  ctx.notes.push(`(r) ${target}: stale by endpoint: ${staleByEndpoint(run.window)}`);
  ctx.notes.push(
    `(r) ${target}: idle (${d.idleS} s, blocks going on) upstream ` +
      `requests per minute by endpoint (by purpose): ${idle.line}`,
  );
  const m = run.members;
  ctx.notes.push(
    `(r) ${target}: the first replica's /status after the warm-up: ` +
      (m === null
        ? 'no fleet section (a build without the member list)'
        : `${m.seen} members, ` +
          (m.namespaceMismatch ? 'NAMESPACES DIFFER (the replicas share no entries)' : 'one namespace')),
  );
  ctx.notes.push(
    `(r) ${target}: propagation: ${p.blocks} blocks in ${d.propagationS} s, ` +
      `${p.fromBlock.length} served by every replica within it, ${p.polls} polls`,
  );
  if (run.crawl !== null)
    ctx.notes.push(
      `(r) ${target}: crawl ${run.crawl.requests} paths in ` +
        `${run.crawl.seconds.toFixed(1)} s${run.crawl.errors > 0 ? ` (${run.crawl.errors} errors)` : ''}`,
    );
  const errs = run.window.tally.errors + run.window.tally.dropped;
  if (errs > 0)
    ctx.notes.push(
      `(r) ${target}: ${run.window.tally.errors} answers not judged (5xx or ` +
        `transport error), ${run.window.tally.dropped} not sent (in-flight cap)`,
    );
  return sized;
}

export const fleet: Scenario = {
  id: 'r',
  title:
    'a fleet of 1, 2 and 3 replicas behind nginx round-robin, one ' +
    'Redis: upstream cost, staleness, idle cost, block propagation',
  async run(ctx: Ctx) {
    if (NGINX_BIN === null || REDIS_BIN === null) {
      ctx.notes.push(`(r) skipped: ${NGINX_BIN === null ? 'nginx' : 'redis-server'} not installed`);
      return;
    }
    const d = durations(process.argv, ctx.quick);
    ctx.notes.push(
      `(r) fleet: ${RATE} req/s open loop through nginx round-robin, blocks every ` +
        `${BLOCK_MS / 1000} s ± ${JITTER * 100} %; per size a fresh stack (lockstep simulators, ` +
        'recording wrapper, redis-server, replicas with default settings and one PUBLIC_BASE_URL): ' +
        `${d.crawl ? 'universe crawl, ' : 'no crawl, '}${d.warmS} s warm-up, ` +
        `${d.windowS} s measured, ${d.idleS} s idle, ${d.propagationS} s propagation ` +
        '(workload on, every replica polled directly every 25 ms for block/max and ' +
        `block/list)${ctx.quick ? '; --quick: a smoke run, figures not comparable' : ''}.`,
    );
    const sized: Sized[] = [];
    for (const n of d.sizes) {
      const run = await runFleet({
        replicas: n,
        blockIntervalMs: BLOCK_MS,
        jitter: JITTER,
        rate: RATE,
        crawl: d.crawl,
        warmS: d.warmS,
        windowS: d.windowS,
        idleS: d.idleS,
        propagationS: d.propagationS,
        log: (m) => ctx.log(`(r) ${m}`),
      });
      sized.push(report(ctx, n, run, d));
    }
    const one = sized.find((x) => x.n === 1);
    const three = sized.find((x) => x.n === 3);
    if (one !== undefined && three !== undefined) {
      const up = three.s.upPer1000 / one.s.upPer1000;
      ctx.ratios.push({
        name: "r: fleet of 3, upstream per 1000 / one replica's",
        value: up,
        goal: '<= 1.05',
        pass: up <= 1.05,
        detail: `${f1(three.s.upPer1000)} vs ${f1(one.s.upPer1000)}`,
      });
      const staleOk =
        three.s.staleRatio !== null && one.s.staleRatio !== null ? three.s.staleRatio <= one.s.staleRatio : null;
      ctx.ratios.push({
        name: 'r: fleet of 3, stale answers',
        value: three.s.staleRatio,
        goal: `<= one replica's (${pct(one.s.staleRatio)})`,
        pass: staleOk,
        detail: `${pct(three.s.staleRatio)} vs ${pct(one.s.staleRatio)}`,
      });
      const idle = three.idlePerMin / one.idlePerMin;
      ctx.ratios.push({
        name: "r: idle fleet of 3, upstream per minute / one idle replica's",
        value: idle,
        goal: '<= 1.1',
        pass: idle <= 1.1,
        detail: `${f1(three.idlePerMin)} vs ${f1(one.idlePerMin)} per min`,
      });
    }
    const largest = sized.at(-1);
    if (largest !== undefined && largest.n > 1) {
      const tag = `r: fleet of ${largest.n}, first replica serving a block → every replica`;
      ctx.ratios.push({
        name: `${tag}, p50 ms`,
        value: largest.firstP50,
        goal: '<= 150',
        pass: largest.firstP50 === null ? null : largest.firstP50 <= 150,
        detail: `from the block's production: p50 ${ms(largest.p50)}`,
      });
      ctx.ratios.push({
        name: `${tag}, p99 ms`,
        value: largest.firstP99,
        goal: '<= 500',
        pass: largest.firstP99 === null ? null : largest.firstP99 <= 500,
        detail: `from the block's production: p99 ${ms(largest.p99)}`,
      });
    }
  },
};
