/**
 * (n) Every core: WORKERS=2 against one process, without Redis.
 *  - memory hit: one simulator, a proxy with WORKERS=1 and one with WORKERS=2,
 *    K final `block/detail` keys all in memory (every worker's), measured in
 *    interleaved rounds: req/s as fast as answered, and the server's CPU per
 *    hit (user + system of every process of the server, primary and workers,
 *    from /proc, / requests) at one fixed offered load for both (CPU_RATE: CPU
 *    per request falls as load rises, and at full load two workers and the
 *    load generator contend for the 2 cores), as (a) measures it; the CPU per
 *    hit at full load is reported beside it. Target ≤ 1.1 × one process's CPU
 *    per hit at equal load;
 *  - the oracle's explorer workload (as (r) does for replicas: 150 req/s, a
 *    block every 5 s ± 20 %, every answer judged) through nginx over one
 *    replica with WORKERS=1, then one with WORKERS=2, each on a fresh stack
 *    (bench/lib/fleet/run.ts, no Redis, no crawl): upstream requests per 1000,
 *    stale answers, hits, an idle minute's upstream requests; target ≤ 1.05 ×
 *    one process's upstream per 1000.
 */
import { combine, median, type Ctx, type Scenario } from '../lib/context.js';
import { runFleet } from '../lib/fleet/run.js';
import { runLoad } from '../lib/load.js';
import { NGINX_BIN } from '../lib/nginx.js';
import { diffCounts, hitRatio, startProxyProc, type ProxyProc } from '../lib/proxy.js';
import { treeCpuSeconds } from '../lib/proc.js';
import { startSim } from '../lib/sim.js';
import { summarize, upstreamSplit, type Summary } from '../lib/oracle/summary.js';

const CONNECTIONS = 50;
const ROUNDS = 3;
/** Offered load of the CPU runs (as in (a)): below what both sustain on a loaded 2-core machine. */
const CPU_RATE = 4000;
const RATE = 150;
const BLOCK_MS = 5000;
const JITTER = 0.2;

interface Round {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  durationS: number;
  /** Server CPU µs per request at CPU_RATE. */
  cpuUs: number;
  /** The same during the run as fast as answered. */
  cpuUsMax: number;
  hits: number | null;
}

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)} %`);
const f1 = (v: number): string => v.toFixed(1);

async function memoryHits(ctx: Ctx): Promise<void> {
  const K = ctx.quick ? 300 : 1000;
  const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-n' });
  const procs: ProxyProc[] = [];
  try {
    const [one, two] = await Promise.all([
      startProxyProc([sim.url], { WORKERS: '1' }, 'proxy-n-1'),
      startProxyProc([sim.url], { WORKERS: '2' }, 'proxy-n-2'),
    ]);
    procs.push(one, two);
    const base = (await sim.stats()).finalHeight - 10_000;
    let i = 0;
    const cycle = () => `/block/detail?h=${base - (i++ % K)}`;
    // Every worker holds every key: a connection stays on one worker, the keys cycle on each.
    for (const p of procs) await runLoad({ url: p.url, sample: cycle, connections: CONNECTIONS, amount: 6 * K });
    const dur = ctx.d(6, 1.5);
    const cpuRun = async (p: ProxyProc, rate?: number) => {
      const cpu0 = treeCpuSeconds(p.child.proc.pid);
      const r = await runLoad({
        url: p.url,
        sample: cycle,
        connections: CONNECTIONS,
        duration: dur,
        ...(rate !== undefined ? { rate } : {}),
      });
      const cpu1 = treeCpuSeconds(p.child.proc.pid);
      const cpuUs = cpu0 === null || cpu1 === null || r.total === 0 ? NaN : ((cpu1 - cpu0) / r.total) * 1e6;
      return { r, cpuUs };
    };
    const round = async (p: ProxyProc): Promise<Round> => {
      const c0 = await p.cacheCounts();
      const max = await cpuRun(p);
      const fixed = await cpuRun(p, CPU_RATE);
      const hits = hitRatio(diffCounts(c0, await p.cacheCounts()));
      return {
        rps: max.r.total / max.r.durationS,
        p50: max.r.p50,
        p99: max.r.p99,
        total: max.r.total,
        durationS: max.r.durationS,
        cpuUs: fixed.cpuUs,
        cpuUsMax: max.cpuUs,
        hits,
      };
    };
    const rounds: [Round[], Round[]] = [[], []];
    for (let k = 0; k < ROUNDS; k++) {
      rounds[0].push(await round(one));
      rounds[1].push(await round(two));
      ctx.log(
        `(n) round ${k + 1}/${ROUNDS}: WORKERS=1 ${rounds[0][k]!.rps.toFixed(0)} req/s ` +
          `${rounds[0][k]!.cpuUs.toFixed(1)} µs/hit at ${CPU_RATE}/s (${rounds[0][k]!.cpuUsMax.toFixed(1)} at max); ` +
          `WORKERS=2 ${rounds[1][k]!.rps.toFixed(0)} req/s ${rounds[1][k]!.cpuUs.toFixed(1)} µs/hit at ` +
          `${CPU_RATE}/s (${rounds[1][k]!.cpuUsMax.toFixed(1)} at max)`,
      );
    }
    const cpu = rounds.map((rs) => median(rs.map((r) => r.cpuUs))) as [number, number];
    const cpuMax = rounds.map((rs) => median(rs.map((r) => r.cpuUsMax))) as [number, number];
    rounds.forEach((rs, w) => {
      const c = combine(rs);
      ctx.rows.push({
        scenario: 'n workers',
        target: `memory hit, WORKERS=${w + 1}`,
        rps: c.rps,
        p50: c.p50,
        p99: c.p99,
        hitRatio: median(rs.map((r) => r.hits ?? NaN)),
        upPer1000: null,
        cpuUs: cpu[w],
        note:
          `${cpu[w]!.toFixed(1)} µs server CPU per request at ${CPU_RATE} req/s, ${cpuMax[w]!.toFixed(1)} at ` +
          `full load (medians of ${ROUNDS} interleaved rounds, every process of the server)`,
      });
    });
    const ratio = cpu[1] / cpu[0];
    ctx.ratios.push({
      name: "n: WORKERS=2 memory hit, server CPU per hit / one process's (equal load)",
      value: Number.isFinite(ratio) ? ratio : null,
      goal: '<= 1.1',
      pass: Number.isFinite(ratio) ? ratio <= 1.1 : null,
      detail:
        `${cpu[1].toFixed(1)} vs ${cpu[0].toFixed(1)} µs/req at ${CPU_RATE} req/s (medians); per round ` +
        `${rounds[1].map((r, k) => (r.cpuUs / rounds[0][k]!.cpuUs).toFixed(2)).join(' ')}; at full load ` +
        `${(cpuMax[1] / cpuMax[0]).toFixed(2)} (${cpuMax[1].toFixed(1)} vs ${cpuMax[0].toFixed(1)} µs/req)`,
    });
  } finally {
    await Promise.all(procs.map((p) => p.close()));
    await sim.close();
  }
}

async function oracle(ctx: Ctx): Promise<void> {
  const d = ctx.quick
    ? { warmS: 5, windowS: 15, idleS: 10, propagationS: 1 }
    : { warmS: 60, windowS: 60, idleS: 30, propagationS: 1 };
  ctx.notes.push(
    `(n) oracle: ${RATE} req/s open loop through nginx over one replica, blocks every ${BLOCK_MS / 1000} s ± ` +
      `${JITTER * 100} %, no Redis, no crawl; per WORKERS a fresh stack: ${d.warmS} s warm-up, ${d.windowS} s ` +
      `measured, ${d.idleS} s idle${ctx.quick ? '; --quick: a smoke run, figures not comparable' : ''}.`,
  );
  const sized: Summary[] = [];
  for (const workers of [1, 2]) {
    const run = await runFleet({
      replicas: 1,
      workers,
      redis: false,
      blockIntervalMs: BLOCK_MS,
      jitter: JITTER,
      rate: RATE,
      crawl: false,
      ...d,
      log: (m) => ctx.log(`(n) WORKERS=${workers}: ${m}`),
    });
    const s = summarize(run.window);
    sized.push(s);
    const idlePerMin = (run.idle.requests * 60) / d.idleS;
    ctx.rows.push({
      scenario: 'n workers',
      target: `oracle workload, WORKERS=${workers}, no Redis`,
      rps: s.rps,
      p50: s.p50,
      p99: s.p99,
      hitRatio: s.hitRatio,
      upPer1000: s.upPer1000,
      note: `stale ${pct(s.staleRatio)}; ${upstreamSplit(s)}; idle ${f1(idlePerMin)} upstream req/min`,
    });
  }
  const [one, two] = sized as [Summary, Summary];
  const up = two.upPer1000 / one.upPer1000;
  ctx.ratios.push({
    name: "n: WORKERS=2 oracle workload, upstream per 1000 / one process's",
    value: up,
    goal: '<= 1.05',
    pass: up <= 1.05,
    detail: `${f1(two.upPer1000)} vs ${f1(one.upPer1000)}; stale ${pct(two.staleRatio)} vs ${pct(one.staleRatio)}`,
  });
}

export const workers: Scenario = {
  id: 'n',
  title: 'WORKERS=2 against one process, no Redis: CPU per memory hit, the oracle workload upstream per 1000',
  async run(ctx: Ctx) {
    await memoryHits(ctx);
    if (NGINX_BIN === null) {
      ctx.notes.push('(n) oracle workload skipped: nginx not installed');
      return;
    }
    await oracle(ctx);
  },
};
