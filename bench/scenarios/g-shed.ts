/**
 * (shed) Load shedding: 2000 concurrent distinct misses against a slow upstream
 * (200 ms per answer, 32 connections: ~160 answers/s). Two proxies, same
 * settings but the per-upstream queue: bounded (UPSTREAM_MAX_QUEUE=256, the
 * default) and unbounded. Reported per proxy: share answered 200 in time
 * (within the client's 5 s), share shed fast with 503 (and how fast), other
 * failures, the upstream breaker state after, and server CPU per request
 * (Δ process_cpu_seconds_total / requests).
 */
import { Agent, request } from 'undici';
import type { Ctx, Scenario } from '../lib/context.js';
import { startProxyProc } from '../lib/proxy.js';
import { startSim } from '../lib/sim.js';

const BURST = 2000;
const LATENCY_MS = 200;
const IN_TIME_MS = 5000;

interface Outcome {
  status: number;
  ms: number;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name + ' ') || line.startsWith(name + '{'))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

async function breakerState(url: string): Promise<string> {
  const s = (await (await fetch(`${url}/status`)).json()) as { data?: { upstreams?: Array<{ breaker: string }> } };
  return s.data?.upstreams?.map((u) => u.breaker).join(',') ?? '?';
}

function quantile(xs: number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

async function burst(url: string, offset: number): Promise<Outcome[]> {
  const agent = new Agent({
    connections: BURST,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: IN_TIME_MS * 3,
    bodyTimeout: IN_TIME_MS * 3,
  });
  try {
    // Open the 2000 keep-alive connections first (/healthz): a cold connect storm overflows the
    // listen backlog and measures SYN retransmits, not the proxy (clients come through a balancer).
    await Promise.all(
      Array.from({ length: BURST }, async () => {
        const r = await request(`${url}/healthz`, { dispatcher: agent }).catch(() => null);
        await r?.body.dump();
      }),
    );
    return await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const t0 = performance.now();
        try {
          const r = await request(`${url}/tx/list?page=${offset + i + 1}&page_size=5`, {
            dispatcher: agent,
            signal: AbortSignal.timeout(IN_TIME_MS * 3),
          });
          await r.body.dump();
          return { status: r.statusCode, ms: performance.now() - t0 };
        } catch {
          return { status: 0, ms: performance.now() - t0 };
        }
      }),
    );
  } finally {
    await agent.close();
  }
}

export const shed: Scenario = {
  id: 'g',
  title: '2000 concurrent distinct misses against a slow upstream (load shedding)',
  async run(ctx: Ctx) {
    const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-shed' });
    const common = { UPSTREAM_CONNECTIONS: '32', UPSTREAM_HEDGE_AFTER_MS: '0', REQUEST_TIMEOUT_MS: '15000' };
    const bounded = await startProxyProc([sim.url], { ...common, UPSTREAM_MAX_QUEUE: '256' }, 'proxy-shed');
    const unbounded = await startProxyProc([sim.url], { ...common, UPSTREAM_MAX_QUEUE: '1000000' }, 'proxy-noshed');
    await sim.setFaults({ latencyMs: LATENCY_MS });
    const shares: Record<string, { ok: number; shed: number }> = {};
    try {
      let offset = 0;
      for (const [name, p] of [
        ['bounded queue (256)', bounded],
        ['unbounded queue', unbounded],
      ] as const) {
        const cpu0 = await metric(p.url, 'process_cpu_seconds_total');
        const t0 = performance.now();
        const out = await burst(p.url, offset);
        const wall = (performance.now() - t0) / 1000;
        offset += BURST;
        const cpu = (await metric(p.url, 'process_cpu_seconds_total')) - cpu0;
        const ok = out.filter((o) => o.status === 200 && o.ms <= IN_TIME_MS);
        const shedFast = out.filter((o) => o.status === 503);
        const other = out.length - ok.length - shedFast.length;
        const breaker = await breakerState(p.url);
        shares[name] = { ok: ok.length / BURST, shed: shedFast.length / BURST };
        const okMs = ok.map((o) => o.ms);
        const shedMs = shedFast.map((o) => o.ms);
        ctx.rows.push({
          scenario: `shed ${BURST} misses, ${LATENCY_MS} ms upstream`,
          target: name,
          rps: BURST / wall,
          p50: quantile(okMs, 0.5),
          p99: quantile(okMs, 0.99),
          hitRatio: null,
          upPer1000: null,
          note:
            `200 in ${IN_TIME_MS / 1000} s: ${((ok.length / BURST) * 100).toFixed(1)}%; ` +
            `503 shed: ${((shedFast.length / BURST) * 100).toFixed(1)}% ` +
            `(p99 ${quantile(shedMs, 0.99)?.toFixed(1) ?? '–'} ms); ` +
            `other (late/5xx/errors): ${other}; breaker after: ${breaker}; ` +
            `CPU/request ${((cpu / BURST) * 1e6).toFixed(0)} µs`,
        });
      }
    } finally {
      await sim.setFaults({});
      await Promise.all([bounded.close(), unbounded.close(), sim.close()]);
    }
    const b = shares['bounded queue (256)'];
    const u = shares['unbounded queue'];
    if (b && u) {
      ctx.ratios.push({
        name: 'shed: share of the 2000 misses answered in time or shed fast (bounded queue)',
        value: b.ok + b.shed,
        goal: '= 1',
        pass: b.ok + b.shed >= 0.999,
        detail:
          `bounded: ${(b.ok * 100).toFixed(1)}% answered, ${(b.shed * 100).toFixed(1)}% ` +
          `shed; unbounded: ${(u.ok * 100).toFixed(1)}% answered in time`,
      });
    }
  },
};
