/**
 * (s) /metrics under repeated scrapes: cache-hit throughput alone and with 20
 * connections scraping /metrics as fast as they can, for a proxy rendering on
 * every scrape (METRICS_CACHE_MS=0, the old behaviour) and one rendering at
 * most once a second (the default). Ratio: hit req/s with scrapers / alone.
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { getRaw } from '../lib/proc.js';
import { startProxyProc } from '../lib/proxy.js';
import { startSim } from '../lib/sim.js';
import { cpuMsOf } from './m-flood.js';

const HIT_CONNECTIONS = 50;
const SCRAPERS = 20;

export const scrape: Scenario = {
  id: 's',
  title: '/metrics scraped by 20 connections during cache hits',
  async run(ctx: Ctx) {
    const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-scrape' });
    try {
      const final = (await sim.stats()).finalHeight;
      const path = `/block/detail?h=${final - 100}`;
      const withScrapers = new Map<string, number>();
      for (const cacheMs of ['0', '1000']) {
        const proxy = await startProxyProc([sim.url], { METRICS_CACHE_MS: cacheMs }, `proxy-scrape-${cacheMs}`);
        try {
          const pid = proxy.child.proc.pid ?? 0;
          await getRaw(proxy.url + path);
          const dur = ctx.d(3, 1.5);
          await runLoad({ url: proxy.url, path, connections: HIT_CONNECTIONS, duration: ctx.d(2, 1) });
          // Alternating rounds (alone, with scrapers, ...): machine noise hits both alike.
          const aloneRuns: LoadResult[] = [];
          const hitRuns: LoadResult[] = [];
          const scrapeRuns: LoadResult[] = [];
          let cpuAloneMs = 0;
          let cpuBothMs = 0;
          for (let round = 0; round < (ctx.quick ? 2 : 4); round++) {
            const c0 = cpuMsOf(pid);
            aloneRuns.push(await runLoad({ url: proxy.url, path, connections: HIT_CONNECTIONS, duration: dur }));
            const c1 = cpuMsOf(pid);
            const [h, sc] = await Promise.all([
              runLoad({ url: proxy.url, path, connections: HIT_CONNECTIONS, duration: dur }),
              runLoad({ url: proxy.url, path: '/metrics', connections: SCRAPERS, duration: dur }),
            ]);
            cpuAloneMs += c1 - c0;
            cpuBothMs += cpuMsOf(pid) - c1;
            hitRuns.push(h);
            scrapeRuns.push(sc);
          }
          const alone = combine(aloneRuns);
          const hits = combine(hitRuns);
          const scrapes = combine(scrapeRuns);
          const cpuAlone = cpuAloneMs / Math.max(alone.total, 1);
          const cpuBoth = cpuBothMs / Math.max(hits.total + scrapes.total, 1);
          const label = cacheMs === '0' ? 'render every scrape' : 'render ≤ 1/s';
          for (const [name, r, cpu] of [
            [`hits alone (${label})`, alone, cpuAlone],
            [`hits + ${SCRAPERS} scrapers (${label})`, hits, cpuBoth],
          ] as const) {
            ctx.rows.push({
              scenario: 's /metrics scrapes',
              target: name,
              rps: r.rps,
              p50: r.p50,
              p99: r.p99,
              hitRatio: null,
              upPer1000: null,
              note: `${cpu.toFixed(3)} ms CPU/req`,
            });
          }
          ctx.rows.push({
            scenario: 's /metrics scrapes',
            target: `scrapes (${label})`,
            rps: scrapes.rps,
            p50: scrapes.p50,
            p99: scrapes.p99,
            hitRatio: null,
            upPer1000: null,
            note: `${SCRAPERS} conns`,
          });
          ctx.ratios.push({
            name: `s: hit req/s with scrapers / alone (${label})`,
            value: hits.rps / alone.rps,
            goal: '(reported)',
            pass: null,
            detail:
              `${alone.rps.toFixed(0)} → ${hits.rps.toFixed(0)} req/s; ${scrapes.rps.toFixed(0)} ` +
              `scrapes/s (the scrapers' own client CPU shares the machine)`,
          });
          withScrapers.set(cacheMs, hits.rps);
        } finally {
          await proxy.close();
        }
      }
      const before = withScrapers.get('0');
      const after = withScrapers.get('1000');
      if (before !== undefined && after !== undefined) {
        ctx.ratios.push({
          name: 's: hit req/s under 20 scrapers, render ≤ 1/s vs every scrape',
          value: after / before,
          goal: '>= 5',
          pass: after / before >= 5,
          detail: `${before.toFixed(0)} → ${after.toFixed(0)} req/s`,
        });
      }
    } finally {
      await sim.close();
    }
  },
};
