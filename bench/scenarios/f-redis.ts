/**
 * (f, issue 5) Redis second tier, one redis-server and one simulator of its own:
 *  - memory hit: a replica with a big memory tier, K keys all in memory;
 *  - Redis hit: a replica with CACHE_MAX_BYTES=1MiB reading the same K keys in
 *    a cycle (LRU's worst case), so nearly every answer comes from Redis;
 *  - miss: unique keys (memory miss, Redis miss, upstream, Redis write);
 *  - the explorer mix over one replica, then the same mix spread over two fresh
 *    replicas sharing a flushed Redis (two autocannon instances, half the
 *    connections each; req/s summed, p50/p99 the worse of the two).
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { diffCounts, hitRatio, startProxyProc, type CacheCounts, type ProxyProc } from '../lib/proxy.js';
import { REDIS_BIN, startRedis } from '../lib/redis.js';
import { startSim } from '../lib/sim.js';
import { buildUniverse, mixSampler } from './b-mix.js';

const CONNECTIONS = 50;

function sumCounts(cs: CacheCounts[]): CacheCounts {
  const out: CacheCounts = { HIT: 0, MISS: 0, STALE: 0, BYPASS: 0, ERROR: 0 };
  for (const c of cs) for (const k of Object.keys(out) as (keyof CacheCounts)[]) out[k] += c[k];
  return out;
}

export const redis: Scenario = {
  id: 'f',
  title: 'Redis tier',
  async run(ctx: Ctx) {
    if (REDIS_BIN === null) {
      ctx.notes.push('(f) skipped: redis-server not installed.');
      return;
    }
    const K = ctx.quick ? 1000 : 3000;
    const rd = await startRedis();
    const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-f' });
    const procs: ProxyProc[] = [];
    try {
      const env = { REDIS_URL: rd.url };
      const [big, tiny] = await Promise.all([
        startProxyProc([sim.url], env, 'proxy-f-mem'),
        startProxyProc([sim.url], { ...env, CACHE_MAX_BYTES: '1MiB' }, 'proxy-f-redis'),
      ]);
      procs.push(big, tiny);
      const base = (await sim.stats()).finalHeight - 10_000;
      let i = 0;
      const cycle = () => `/block/detail?h=${base - (i++ % K)}`;
      // Fill memory of `big` and Redis.
      await runLoad({ url: big.url, sample: cycle, connections: 20, amount: K });
      const dur = ctx.d(6, 1.5);
      const measure = async (scenario: string, target: string, p: ProxyProc, sample: () => string, note: string): Promise<LoadResult> => {
        await runLoad({ url: p.url, sample, connections: CONNECTIONS, duration: ctx.d(1, 0.3) }); // warm-up
        const c0 = await p.cacheCounts();
        const s0 = await sim.total();
        const r = await runLoad({ url: p.url, sample, connections: CONNECTIONS, duration: dur });
        const up = (await sim.total()) - s0;
        const c = combine([r]);
        ctx.rows.push({ scenario, target, rps: c.rps, p50: c.p50, p99: c.p99, hitRatio: hitRatio(diffCounts(c0, await p.cacheCounts())), upPer1000: (up / r.total) * 1000, note });
        return r;
      };
      const m = await measure('f Redis tier', 'memory hit', big, cycle, `${K} keys, all in memory`);
      const rh = await measure('f Redis tier', 'Redis hit (memory 1 MiB)', tiny, cycle, `${K} keys cycled through a 1 MiB memory tier`);
      let fresh = base - 100_000;
      await measure('f Redis tier', 'miss (memory+Redis miss)', big, () => `/block/detail?h=${fresh--}`, 'unique keys');
      ctx.ratios.push({ name: 'f: Redis hit / memory hit req/s', value: rh.total / rh.durationS / (m.total / m.durationS), goal: 'info', pass: null, detail: `p50 ${rh.p50} vs ${m.p50} ms` });
    } finally {
      await Promise.all(procs.splice(0).map((p) => p.close()));
    }

    // Mix over one replica vs two replicas sharing Redis (fresh replicas, flushed Redis each time).
    if (ctx.quick) {
      ctx.notes.push('(f) mix over 1 vs 2 replicas sharing Redis: full run only.');
      await sim.close();
      await rd.close();
      return;
    }
    try {
      const u = await buildUniverse(sim, ctx.blockIntervalMs);
      const warm = ctx.d(3, 1);
      const dur = ctx.d(10, 2.5);
      for (const n of [1, 2]) {
        await rd.flush();
        const reps = await Promise.all(Array.from({ length: n }, (_, k) => startProxyProc([sim.url], { REDIS_URL: rd.url }, `proxy-f-r${k}`)));
        procs.push(...reps);
        const u2 = { ...u, head0: await sim.head(), t0: Date.now() };
        await Promise.all(reps.map((p, k) => runLoad({ url: p.url, sample: mixSampler(u2, 7 + k), connections: CONNECTIONS / n, duration: warm })));
        const c0 = await Promise.all(reps.map((p) => p.cacheCounts()));
        const s0 = await sim.total();
        const rs = await Promise.all(reps.map((p, k) => runLoad({ url: p.url, sample: mixSampler(u2, 42 + k), connections: CONNECTIONS / n, duration: dur })));
        const up = (await sim.total()) - s0;
        const c1 = await Promise.all(reps.map((p) => p.cacheCounts()));
        const total = rs.reduce((a, r) => a + r.total, 0);
        const rps = rs.reduce((a, r) => a + r.total / r.durationS, 0);
        ctx.rows.push({
          scenario: 'f mix + Redis',
          target: n === 1 ? '1 replica' : `${n} replicas, shared Redis`,
          rps,
          p50: Math.max(...rs.map((r) => r.p50)),
          p99: Math.max(...rs.map((r) => r.p99)),
          hitRatio: hitRatio(sumCounts(c1.map((c, k) => diffCounts(c0[k]!, c)))),
          upPer1000: (up / total) * 1000,
          note: `cold start, ${warm}s warm-up, ${CONNECTIONS} conns in all`,
        });
        await Promise.all(procs.splice(0).map((p) => p.close()));
      }
    } finally {
      await Promise.all(procs.splice(0).map((p) => p.close()));
      await sim.close();
      await rd.close();
    }
  },
};
