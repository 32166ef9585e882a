/**
 * (d) Stampede: 500 connections each send one request for the same cold key
 * at once (upstream answers in 200 ms, so they all arrive while the first
 * fetch is in flight). Counted: upstream requests for that endpoint per burst.
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import type { SimProc } from '../lib/sim.js';

const BURST = 500;
const LATENCY_MS = 200;

async function endpointCount(sim: SimProc, endpoint: string): Promise<number> {
  return (await sim.stats()).requests[endpoint] ?? 0;
}

export const stampede: Scenario = {
  id: 'd',
  title: 'stampede on one cold key',
  async run(ctx: Ctx) {
    const { sim, proxy } = await ctx.proxyStack();
    const ng = await ctx.nginxStack();
    const rounds = ctx.quick ? 2 : 5;
    const targets = [
      { name: 'proxy', url: proxy.url, sim },
      ...(ng ? [{ name: 'nginx', url: ng.nginx.url, sim: ng.sim }] : []),
    ];
    await sim.setFaults({ latencyMs: LATENCY_MS });
    if (ng) await ng.sim.setFaults({ latencyMs: LATENCY_MS });
    const upByTarget: Record<string, number[]> = {};
    try {
      let key = 2_000_000;
      for (const t of targets) {
        const ups: number[] = [];
        const rs: LoadResult[] = [];
        let bad = 0;
        for (let i = 0; i < rounds; i++) {
          const path = `/tx/list?block_height=${key++}`;
          const s0 = await endpointCount(t.sim, 'tx/list');
          const r = await runLoad({ url: t.url, path, connections: BURST, amount: BURST, timeout: 15 });
          ups.push((await endpointCount(t.sim, 'tx/list')) - s0);
          rs.push(r);
          bad += r.non2xx + r.errors;
        }
        upByTarget[t.name] = ups;
        const c = combine(rs);
        const upTotal = ups.reduce((a, b) => a + b, 0);
        ctx.rows.push({
          scenario: `d stampede ${BURST}`,
          target: t.name,
          rps: c.rps,
          p50: c.p50,
          p99: c.p99,
          hitRatio: null,
          upPer1000: (upTotal / c.total) * 1000,
          note: `upstream requests per burst: ${ups.join(', ')}${bad ? `; ${bad} non-2xx/errors` : ''}`,
        });
      }
    } finally {
      await sim.setFaults({});
      if (ng) await ng.sim.setFaults({});
    }
    const p = upByTarget.proxy ?? [];
    const worst = Math.max(...p);
    ctx.ratios.push({
      name: `d: upstream requests per ${BURST}-request stampede (proxy, worst burst)`,
      value: worst,
      goal: '= 1',
      pass: worst === 1,
      detail: `bursts: ${p.join(', ')}`,
    });
  },
};
