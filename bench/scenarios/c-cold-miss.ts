/**
 * (c) Cold misses: every request a key never seen (block/detail of distinct old
 * heights) against an upstream with 50 ms added latency, through the proxy,
 * nginx and straight to the simulator (the floor). The proxy twice: clients
 * asking identity and clients accepting gzip (the answer, ~1.6 KB, goes out
 * compressed), with the proxy's CPU time per miss (/proc/<pid>/stat).
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { diffCounts, hitRatio } from '../lib/proxy.js';
import { nginxHitRatio } from '../lib/nginx.js';
import { cpuSeconds } from '../lib/proc.js';

const LATENCY_MS = 50;
const CONNECTIONS = 20;

export const coldMiss: Scenario = {
  id: 'c',
  title: 'cold misses, slow upstream',
  async run(ctx: Ctx) {
    const { sim, proxy } = await ctx.proxyStack();
    const ng = await ctx.nginxStack();
    const dur = ctx.d(8, 2);
    let next = 3_000_000; // far below anything (a)/(b) touch
    const unique = () => `/block/detail?h=${next++}`;
    const targets = [
      { name: 'direct (no cache)', url: sim.url, sim },
      { name: 'proxy', url: proxy.url, sim },
      { name: 'proxy, gzip clients', url: proxy.url, sim, headers: { 'accept-encoding': 'gzip' } },
      ...(ng ? [{ name: 'nginx', url: ng.nginx.url, sim: ng.sim }] : []),
    ];
    await sim.setFaults({ latencyMs: LATENCY_MS });
    if (ng) await ng.sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      for (const t of targets) {
        const ours = t.url === proxy.url;
        const c0 = ours ? await proxy.cacheCounts() : null;
        const cpu0 = ours ? cpuSeconds(proxy.child.proc.pid) : null;
        if (t.name === 'nginx') await ng!.nginx.mark();
        const s0 = await t.sim.total();
        const r = await runLoad({
          url: t.url,
          sample: unique,
          connections: CONNECTIONS,
          duration: dur,
          ...('headers' in t ? { headers: t.headers } : {}),
        });
        const cpu1 = ours ? cpuSeconds(proxy.child.proc.pid) : null;
        const up = (await t.sim.total()) - s0;
        const hr = ours
          ? hitRatio(diffCounts(c0!, await proxy.cacheCounts()))
          : t.name === 'nginx'
            ? nginxHitRatio(await ng!.nginx.counts())
            : null;
        const c = combine([r]);
        const bad = r.non2xx + r.errors;
        ctx.rows.push({
          scenario: 'c cold miss +50ms',
          target: t.name,
          rps: c.rps,
          p50: c.p50,
          p99: c.p99,
          hitRatio: hr,
          upPer1000: (up / r.total) * 1000,
          cpuUs: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) / r.total) * 1e6 : null,
          note: `${CONNECTIONS} conns, unique keys${bad ? `; ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
        });
      }
    } finally {
      await sim.setFaults({});
      if (ng) await ng.sim.setFaults({});
    }
  },
};
