/**
 * (a) Hot hit path: one cached URL through the proxy against a bare Fastify
 * route (own process) sending the same bytes with the same headers, and
 * through nginx. Rounds are interleaved (bare, proxy, nginx, bare, …) so
 * machine noise hits every target alike; req/s = all requests / all time.
 */
import { startBare } from '../lib/bare.js';
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { getRaw } from '../lib/proc.js';
import { diffCounts, hitRatio } from '../lib/proxy.js';
import { nginxHitRatio } from '../lib/nginx.js';

export const CONNECTIONS = 50;

export const hitPath: Scenario = {
  id: 'a',
  title: 'hot hit path',
  async run(ctx: Ctx) {
    const { sim, proxy } = await ctx.proxyStack();
    const ng = await ctx.nginxStack();
    const final = (await sim.stats()).finalHeight;
    const path = `/block/detail?h=${final - 100}`;
    await getRaw(proxy.url + path);
    const hit = await getRaw(proxy.url + path);
    if (hit.status !== 200 || hit.headers['x-cache'] !== 'HIT') ctx.notes.push(`(a) second proxy answer was ${hit.status} X-Cache ${hit.headers['x-cache']}, expected a 200 HIT`);
    const bare = await startBare(hit.body, hit.headers);
    try {
      const check = await getRaw(bare.url + path);
      if (!check.body.equals(hit.body)) throw new Error('bare server does not send the proxy bytes');
      if (ng) await getRaw(ng.nginx.url + path);

      const targets: Array<{ name: string; url: string }> = [
        { name: 'bare Fastify', url: bare.url },
        { name: 'proxy', url: proxy.url },
        ...(ng ? [{ name: 'nginx', url: ng.nginx.url }] : []),
      ];
      // Short rounds, order alternating, ratio = median of per-round ratios: robust to drift on a shared machine.
      const dur = ctx.d(2.5, 1);
      const rounds = ctx.quick ? 3 : 8;
      // Warm-up (JIT, connections).
      for (const t of targets) await runLoad({ url: t.url, path, connections: CONNECTIONS, duration: ctx.d(2, 0.5) });

      const res = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
      const c0 = await proxy.cacheCounts();
      const s0 = await sim.total();
      if (ng) await ng.nginx.mark();
      const n0 = ng ? await ng.sim.total() : 0;
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) res.get(t.name)!.push(await runLoad({ url: t.url, path, connections: CONNECTIONS, duration: dur }));
      }
      const proxyHits = hitRatio(diffCounts(c0, await proxy.cacheCounts()));
      const proxyUp = (await sim.total()) - s0;
      const ngCounts = ng ? await ng.nginx.counts() : {};
      const ngUp = ng ? (await ng.sim.total()) - n0 : 0;

      const by = (name: string) => combine(res.get(name)!);
      const b = by('bare Fastify');
      const p = by('proxy');
      const note = `${hit.body.length} B body, ${CONNECTIONS} conns, ${rounds}×${dur}s interleaved`;
      ctx.rows.push({ scenario: 'a hit path', target: 'bare Fastify', rps: b.rps, p50: b.p50, p99: b.p99, hitRatio: null, upPer1000: null, note });
      ctx.rows.push({ scenario: 'a hit path', target: 'proxy', rps: p.rps, p50: p.p50, p99: p.p99, hitRatio: proxyHits, upPer1000: (proxyUp / p.total) * 1000, note: 'upstream = probes only' });
      if (ng) {
        const n = by('nginx');
        ctx.rows.push({ scenario: 'a hit path', target: 'nginx', rps: n.rps, p50: n.p50, p99: n.p99, hitRatio: nginxHitRatio(ngCounts), upPer1000: (ngUp / n.total) * 1000, note: 'TTL 5 s + background update' });
        ctx.ratios.push({ name: 'a: proxy / nginx req/s (hit path)', value: p.rps / n.rps, goal: 'info', pass: null, detail: `${p.rps.toFixed(0)} / ${n.rps.toFixed(0)}` });
      }
      const perRound = res.get('proxy')!.map((r, i) => r.rps / res.get('bare Fastify')![i]!.rps).sort((x, y) => x - y);
      const ratio = perRound[Math.floor(perRound.length / 2)]!;
      ctx.ratios.push({
        name: 'a: proxy / bare req/s (hit path, median of rounds)',
        value: ratio,
        goal: '>= 0.9',
        pass: ratio >= 0.9,
        detail: `all rounds: ${p.rps.toFixed(0)} / ${b.rps.toFixed(0)} req/s = ${(p.rps / b.rps).toFixed(3)}; per round ${perRound.map((x) => x.toFixed(2)).join(' ')}`,
      });
    } finally {
      await bare.close();
    }
  },
};
