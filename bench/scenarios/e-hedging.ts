/**
 * (e, issue 4) Misses with one of three upstreams hanging, all three with
 * 20±10 ms latency. For each variant, the same load on a fresh proxy with the
 * default hedging and retries, then on a fresh proxy with hedging off and a
 * single attempt. Both use a 1 s attempt timeout (so a hung attempt ends inside
 * the measured window) and a 3 s deadline. Measured from /readyz on, so the
 * time the pool needs to notice the hung upstream is included.
 *
 * Variants: "hung" = every request to it (probes included) never answers;
 * full runs add "1 in 2 hung" = every second request hangs (probes pass half
 * the time, consecutive-failure breakers rarely open: the case hedging is for).
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { startProxyProc } from '../lib/proxy.js';
import { startSim, type SimProc } from '../lib/sim.js';

const COMMON = { UPSTREAM_TIMEOUT_MS: '1000', UPSTREAM_DEADLINE_MS: '3000', REQUEST_TIMEOUT_MS: '5000' };
const BASE = { latencyMs: 20, jitterMs: 10 };

export const hedging: Scenario = {
  id: 'e',
  title: 'misses with one of three upstreams hanging',
  async run(ctx: Ctx) {
    const sims: SimProc[] = await Promise.all(
      [0, 1, 2].map((i) => startSim({ blockIntervalMs: ctx.blockIntervalMs, name: `sim-e${i}` })),
    );
    try {
      for (const s of sims) await s.setFaults(BASE);
      const dur = ctx.d(10, 2.5);
      const configs = [
        { name: 'hedging + retries', env: { ...COMMON } },
        {
          name: 'no hedging, 1 attempt',
          env: { ...COMMON, UPSTREAM_HEDGE_AFTER_MS: '0', UPSTREAM_HEDGE_QUANTILE: '0', UPSTREAM_MAX_ATTEMPTS: '1' },
        },
      ];
      const variants = [
        { name: '1 of 3 upstreams hung', errorRate: 1 },
        ...(ctx.quick ? [] : [{ name: '1 of 3 upstreams: 1 in 2 hang', errorRate: 0.5 }]),
      ];
      let key = 1_000_000;
      for (const v of variants) {
        const res: Record<string, { p50: number; p99: number; bad: number }> = {};
        for (const cfg of configs) {
          await sims[2]!.setFaults(BASE); // healthy at start: the proxy becomes ready knowing all three
          const proxy = await startProxyProc(
            sims.map((s) => s.url),
            cfg.env,
            'proxy-e',
          );
          try {
            await sims[2]!.setFaults({ ...BASE, errorRate: v.errorRate, kind: 'hang' });
            const before = await Promise.all(sims.map((s) => s.total()));
            const r = await runLoad({
              url: proxy.url,
              sample: () => `/block/detail?h=${key++}`,
              connections: 20,
              duration: dur,
              timeout: 10,
            });
            const after = await Promise.all(sims.map((s) => s.total()));
            const up = after.reduce((a, n, i) => a + n - before[i]!, 0);
            const c = combine([r]);
            const bad = r.non2xx + r.errors;
            res[cfg.name] = { p50: c.p50, p99: c.p99, bad };
            ctx.rows.push({
              scenario: `e ${v.name}`,
              target: `proxy, ${cfg.name}`,
              rps: c.rps,
              p50: c.p50,
              p99: c.p99,
              hitRatio: null,
              upPer1000: (up / r.total) * 1000,
              note: `${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors; max ${r.max} ms`,
            });
          } finally {
            await proxy.close();
          }
        }
        const h = res[configs[0]!.name];
        const n = res[configs[1]!.name];
        if (h && n) {
          ctx.ratios.push({
            name: `e (${v.name}): p99 with / without hedging+retries`,
            value: h.p99 / n.p99,
            goal: '< 1',
            pass: h.p99 < n.p99,
            detail: `p99 ${h.p99} vs ${n.p99} ms; p50 ${h.p50} vs ${n.p50} ms; client errors ${h.bad} vs ${n.bad}`,
          });
        }
      }
    } finally {
      await Promise.all(sims.map((s) => s.close()));
    }
  },
};
