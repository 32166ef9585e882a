/**
 * (a) Hot hit path: one cached URL through the proxy, in its default
 * configuration (rate limiter on, a budget no client reaches) with the memory
 * tier alone and with REDIS_URL, beside the limiter turned off and tracing on
 * (OTLP to a local sink, 1 % of roots sampled: its CPU ratio to the default
 * proxy is tracing's cost per hit), against a bare Fastify route (own process)
 * sending the same bytes with the same headers, and nginx. Rounds are
 * interleaved (order alternating) so machine noise hits every target alike.
 * Each round and target: a run as fast as the target answers (req/s), then a
 * run at one fixed offered load for all targets (server CPU per request = CPU
 * time of the server process, all threads, from the scheduler
 * (bench/lib/proc.ts), / requests). CPU per request is compared at equal load
 * because it falls as load rises (more requests per event-loop turn and per
 * syscall): at maximum load a slower round would look costlier per request.
 * Ratios to the bare route are per round; the reported value is their median.
 */
import { startBare } from '../lib/bare.js';
import { combine, median, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { getRaw, treeCpuSeconds, type Child } from '../lib/proc.js';
import { diffCounts, hitRatio, startProxyProc, type ProxyProc } from '../lib/proxy.js';
import { nginxHitRatio } from '../lib/nginx.js';
import { REDIS_BIN, startRedis } from '../lib/redis.js';
import { startOtlpSink, type OtlpSink } from '../lib/otlp-sink.js';

const CONNECTIONS = 50;
/** The default configuration, with a budget no benchmark client reaches. */
const DEFAULT_LIMITER = { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '1000000000' };
const DEFAULT = 'proxy (default: limiter on, memory)';
const TRACED = 'proxy (default + tracing, 1 % sampled)';

/** Tracing's cost per hit: the traced proxy's CPU per request over the default one's, round by round. */
function tracingRatio(ctx: Ctx, off: readonly Round[], on: readonly Round[]): void {
  const ratios = on.map((r, k) => r.cpuUs / off[k]!.cpuUs).filter(Number.isFinite);
  const m = ratios.length === 0 ? null : median(ratios);
  ctx.ratios.push({
    name: `a: tracing on (parentbased_traceidratio 0.01) / off, server CPU per request at ${CPU_RATE} req/s`,
    value: m,
    goal: '<= 1.1',
    pass: m === null ? null : m <= 1.1,
    detail: `median of rounds; per round ${ratios.map((x) => x.toFixed(2)).join(' ')}`,
  });
}

/** Offered load of the CPU runs: below what every target sustains on a loaded 2-core machine. */
const CPU_RATE = 4000;

interface Target {
  name: string;
  url: string;
  child: Child;
  proxy: ProxyProc | null;
  note: string;
}

interface Round extends LoadResult {
  /** Server CPU µs per request in this round's run at CPU_RATE (NaN when /proc is not readable). */
  cpuUs: number;
  /** The same, measured during the run at maximum load. */
  cpuUsMax: number;
}

async function cpuRun(
  t: Target,
  path: string,
  duration: number,
  rate?: number,
): Promise<{ r: LoadResult; cpuUs: number }> {
  const c0 = treeCpuSeconds(t.child.proc.pid);
  const r = await runLoad({
    url: t.url,
    path,
    connections: CONNECTIONS,
    duration,
    ...(rate !== undefined ? { rate } : {}),
  });
  const c1 = treeCpuSeconds(t.child.proc.pid);
  return { r, cpuUs: c0 === null || c1 === null || r.total === 0 ? NaN : ((c1 - c0) / r.total) * 1e6 };
}

async function measure(t: Target, path: string, duration: number): Promise<Round> {
  const max = await cpuRun(t, path, duration);
  const fixed = await cpuRun(t, path, duration, CPU_RATE);
  return { ...max.r, cpuUs: fixed.cpuUs, cpuUsMax: max.cpuUs };
}

export const hitPath: Scenario = {
  id: 'a',
  title: 'hot hit path',
  async run(ctx: Ctx) {
    const { sim, proxy: off } = await ctx.proxyStack();
    const ng = await ctx.nginxStack();
    const rd = REDIS_BIN === null ? null : await startRedis();
    if (rd === null) ctx.notes.push('(a) redis-server not installed: the REDIS_URL row is skipped.');
    const started: ProxyProc[] = [];
    let bare: Awaited<ReturnType<typeof startBare>> | null = null;
    let sink: OtlpSink | null = null;
    try {
      sink = await startOtlpSink();
      const [dflt, withRedis, traced] = await Promise.all([
        startProxyProc([sim.url], DEFAULT_LIMITER, 'proxy-default'),
        rd === null ? null : startProxyProc([sim.url], { ...DEFAULT_LIMITER, REDIS_URL: rd.url }, 'proxy-redis'),
        startProxyProc([sim.url], { ...DEFAULT_LIMITER, ...sink.env }, 'proxy-traced'),
      ]);
      started.push(dflt, traced, ...(withRedis ? [withRedis] : []));
      const final = (await sim.stats()).finalHeight;
      const path = `/block/detail?h=${final - 100}`;
      let hit: Awaited<ReturnType<typeof getRaw>> | null = null;
      for (const p of [dflt, off, traced, ...(withRedis ? [withRedis] : [])]) {
        await getRaw(p.url + path);
        hit = await getRaw(p.url + path);
        if (hit.status !== 200 || hit.headers['x-cache'] !== 'HIT')
          ctx.notes.push(
            `(a) second answer of ${p.child.name} was ${hit.status} ` +
              `X-Cache ${hit.headers['x-cache']}, expected a 200 HIT`,
          );
      }
      bare = await startBare(hit!.body, hit!.headers);
      const check = await getRaw(bare.url + path);
      if (!check.body.equals(hit!.body)) throw new Error('bare server does not send the proxy bytes');
      if (ng) await getRaw(ng.nginx.url + path);

      const targets: Target[] = [
        { name: 'bare Fastify', url: bare.url, child: bare.child, proxy: null, note: '' },
        {
          name: DEFAULT,
          url: dflt.url,
          child: dflt.child,
          proxy: dflt,
          note: 'RATE_LIMIT_MAX=1e9',
        },
        { name: 'proxy (limiter off)', url: off.url, child: off.child, proxy: off, note: 'RATE_LIMIT_ENABLED=false' },
        {
          name: TRACED,
          url: traced.url,
          child: traced.child,
          proxy: traced,
          note: 'OTLP/HTTP to a local sink, parentbased_traceidratio 0.01',
        },
        ...(withRedis
          ? [
              {
                name: 'proxy (default + REDIS_URL)',
                url: withRedis.url,
                child: withRedis.child,
                proxy: withRedis,
                note: 'limiter reconciled through Redis',
              },
            ]
          : []),
        ...(ng
          ? [
              {
                name: 'nginx',
                url: ng.nginx.url,
                child: ng.nginx.child,
                proxy: null,
                note: 'TTL 5 s + background update',
              },
            ]
          : []),
      ];
      const dur = ctx.d(2.5, 1);
      const rounds = ctx.quick ? 3 : 8;
      // warm-up (JIT, connections)
      for (const t of targets) await runLoad({ url: t.url, path, connections: CONNECTIONS, duration: ctx.d(2, 0.5) });

      const res = new Map<string, Round[]>(targets.map((t) => [t.name, []]));
      const counts0 = await Promise.all(targets.map((t) => t.proxy?.cacheCounts() ?? null));
      const s0 = await sim.total();
      if (ng) await ng.nginx.mark();
      const n0 = ng ? await ng.sim.total() : 0;
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) res.get(t.name)!.push(await measure(t, path, dur));
        const line = (t: (typeof targets)[number]): string => {
          const m = res.get(t.name)![r]!;
          return (
            `${t.name} ${m.rps.toFixed(0)} req/s, ${m.cpuUs.toFixed(1)} µs/req at ${CPU_RATE}/s ` +
            `(${m.cpuUsMax.toFixed(1)} at max)`
          );
        };
        ctx.log(`(a) round ${r + 1}/${rounds}: ${targets.map(line).join('; ')}`);
      }
      const proxiesUp = (await sim.total()) - s0;
      const ngCounts = ng ? await ng.nginx.counts() : {};
      const ngUp = ng ? (await ng.sim.total()) - n0 : 0;
      const proxyTotal = targets
        .filter((t) => t.proxy !== null)
        .reduce((a, t) => a + combine(res.get(t.name)!).total, 0);

      const baseline = res.get('bare Fastify')!;
      const note =
        `${hit!.body.length} B body, ${CONNECTIONS} conns, ` +
        `${rounds}×${dur}s interleaved; CPU at ${CPU_RATE} req/s offered`;
      for (const [i, t] of targets.entries()) {
        const rs = res.get(t.name)!;
        const c = combine(rs);
        const counts =
          counts0[i] !== null && t.proxy !== null
            ? hitRatio(diffCounts(counts0[i]!, await t.proxy.cacheCounts()))
            : t.name === 'nginx'
              ? nginxHitRatio(ngCounts)
              : null;
        const up =
          t.proxy !== null ? (proxiesUp / proxyTotal) * 1000 : t.name === 'nginx' ? (ngUp / c.total) * 1000 : null;
        ctx.rows.push({
          scenario: 'a hit path',
          target: t.name,
          rps: c.rps,
          p50: c.p50,
          p99: c.p99,
          hitRatio: counts,
          upPer1000: up,
          cpuUs: median(rs.map((r) => r.cpuUs)),
          note: i === 0 ? note : t.note,
        });
        if (i === 0) continue;
        const rpsRatios = rs.map((r, k) => r.rps / baseline[k]!.rps);
        const cpuRatios = rs.map((r, k) => r.cpuUs / baseline[k]!.cpuUs);
        const cpuMaxRatios = rs.map((r, k) => r.cpuUsMax / baseline[k]!.cpuUsMax);
        const isProxy = t.proxy !== null;
        const gated = isProxy && t.name !== 'proxy (limiter off)' && t.name !== TRACED;
        const rpsMed = median(rpsRatios);
        const cpuMed = median(cpuRatios);
        ctx.ratios.push({
          name: `a: ${t.name} / bare req/s (median of rounds)`,
          value: rpsMed,
          goal: gated ? '>= 0.9' : 'info',
          pass: gated ? rpsMed >= 0.9 : null,
          detail: `per round ${rpsRatios.map((x) => x.toFixed(2)).join(' ')}`,
        });
        ctx.ratios.push({
          name: `a: ${t.name} / bare server CPU per request at ${CPU_RATE} req/s (median of rounds)`,
          value: Number.isFinite(cpuMed) ? cpuMed : null,
          goal: gated ? '<= 1.2' : 'info',
          pass: gated && Number.isFinite(cpuMed) ? cpuMed <= 1.2 : null,
          detail:
            `per round ${cpuRatios.map((x) => x.toFixed(2)).join(' ')}` +
            `${t.name === 'nginx' ? ' (master + workers)' : ''}; ` +
            `at max load: median ${median(cpuMaxRatios).toFixed(2)}, ` +
            `per round ${cpuMaxRatios.map((x) => x.toFixed(2)).join(' ')}`,
        });
      }
      tracingRatio(ctx, res.get(DEFAULT)!, res.get(TRACED)!);
    } finally {
      await sink?.close();
      await bare?.close();
      await Promise.all(started.map((p) => p.close()));
      await rd?.close();
    }
  },
};
