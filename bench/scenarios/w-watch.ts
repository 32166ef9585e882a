/**
 * (w) Watch an address: /stream/activity fan-out.
 *
 * 1000 subscribers watching 1000 different addresses plus 100 watching one
 * busy address, against 10 subscribers (the busy address and 9 others), on a
 * proxy (precise invalidation: its block reader publishes each block's
 * touched set) in front of a simulator whose blocks are produced on command.
 * Per block: the upstream requests it cost (probes and the reader's reads
 * included; must not grow with subscribers or watched entities), block →
 * event at the last subscriber the block concerns (the simulator's truth
 * touchedAt says which), and server CPU per delivered event.
 */
import { normalAddress, touchedAt } from '../../src/sim/index.js';
import type { Ctx, Scenario } from '../lib/context.js';
import { getJson } from '../lib/proc.js';
import { startProxyProc } from '../lib/proxy.js';
import { startSim } from '../lib/sim.js';
import { request } from 'node:http';

const SEED = 1;
const PROBE_MS = 200;

interface Sub {
  addr: string;
  arrivals: Map<number, number>;
  close(): void;
}

function subscribe(url: string, addr: string): Promise<Sub> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    const req = request(
      `${url}/stream/activity?address=${addr}`,
      { agent: false, headers: { accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`activity stream: HTTP ${res.statusCode}`));
        let tail = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => {
          const now = performance.now();
          const text = tail + chunk;
          for (const m of text.matchAll(/(?:^|\n)id: (\d+)\ndata: /g))
            if (!arrivals.has(Number(m[1]))) arrivals.set(Number(m[1]), now);
          tail = text.slice(-40);
        });
        res.on('error', () => undefined);
        resolve({ addr, arrivals, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

interface Result {
  upPerBlock: number;
  lastP50: number;
  lastP99: number;
  cpuUsPerEvent: number;
  cpuS: number;
  events: number;
  missed: number;
}

async function round(ctx: Ctx, label: string, pick: (heights: number[]) => string[], blocks: number): Promise<Result> {
  const sim = await startSim({ blockIntervalMs: 0, seed: SEED, name: `sim-w-${label}` });
  const proxy = await startProxyProc(
    [sim.url],
    {
      UPSTREAM_PROBE_INTERVAL_MS: String(PROBE_MS),
      MAX_STREAMS: '100000',
      STREAM_MAX_PER_CLIENT: '100000',
      INVALIDATION_MODE: 'precise',
    },
    `proxy-w-${label}`,
  );
  const url = proxy.url;
  const subs: Sub[] = [];
  try {
    const h0 = await sim.head();
    const heights = Array.from({ length: blocks }, (_, i) => h0 + 1 + i);
    const addrs = pick(heights);
    for (let i = 0; i < addrs.length; i += 100)
      subs.push(...(await Promise.all(addrs.slice(i, i + 100).map((a) => subscribe(url, a)))));
    const last: number[] = [];
    let up = 0;
    let missed = 0;
    const cpu0 = await metric(url, 'process_cpu_seconds_total');
    const ev0 = await metric(url, 'chainproxy_activity_events_delivered_total');
    for (const h of heights) {
      const named = touchedAt(SEED, h).addresses;
      const want = subs.filter((s) => named.has(s.addr));
      const before = await sim.total();
      const t0 = performance.now();
      await getJson(`${sim.url}/_sim/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":1}',
      });
      const deadline = Date.now() + 10_000;
      while (want.some((s) => !s.arrivals.has(h)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      const times = want.map((s) => s.arrivals.get(h)).filter((t): t is number => t !== undefined);
      missed += want.length - times.length;
      if (times.length > 0) last.push(Math.max(...times) - t0);
      // Let the block's reads settle, then count what it cost upstream (probes and the reader included).
      await new Promise((r) => setTimeout(r, PROBE_MS * 2));
      up += (await sim.total()) - before;
    }
    const cpu = (await metric(url, 'process_cpu_seconds_total')) - cpu0;
    const events = (await metric(url, 'chainproxy_activity_events_delivered_total')) - ev0;
    if (missed > 0) ctx.notes.push(`(w) ${label}: ${missed} expected events not received`);
    return {
      upPerBlock: up / blocks,
      lastP50: pct(last, 0.5),
      lastP99: pct(last, 0.99),
      cpuUsPerEvent: (cpu * 1e6) / Math.max(1, events),
      cpuS: cpu,
      events,
      missed,
    };
  } finally {
    for (const s of subs) s.close();
    await proxy.close();
    await sim.close();
  }
}

/** The address named by most of `heights`, and `n` others named by them (padded with quiet ones). */
function addresses(heights: number[], n: number): { busy: string; others: string[] } {
  const count = new Map<string, number>();
  for (const h of heights) for (const a of touchedAt(SEED, h).addresses) count.set(a, (count.get(a) ?? 0) + 1);
  const ranked = [...count.entries()].sort((a, b) => b[1] - a[1]).map(([a]) => a);
  const busy = ranked[0]!;
  const others = ranked.slice(1, n + 1);
  for (let i = 0; others.length < n; i++) {
    const a = normalAddress(SEED, 100_000 + i);
    if (!count.has(a)) others.push(a);
  }
  return { busy, others };
}

export const watch: Scenario = {
  id: 'w',
  title: 'watch an address: /stream/activity fan-out (1100 vs 10 subscribers)',
  async run(ctx: Ctx) {
    const blocks = ctx.d(30, 8);
    const small = await round(
      ctx,
      '10',
      (hs) => {
        const { busy, others } = addresses(hs, 9);
        return [busy, ...others];
      },
      blocks,
    );
    const big = await round(
      ctx,
      '1100',
      (hs) => {
        const { busy, others } = addresses(hs, 1000);
        return [...others, ...Array.from({ length: 100 }, () => busy)];
      },
      blocks,
    );
    for (const [n, f] of [
      ['10', small],
      ['1000 + 100 on one busy address', big],
    ] as const) {
      ctx.rows.push({
        scenario: 'w activity stream',
        target: `proxy, ${n} subscribers`,
        rps: null,
        p50: f.lastP50,
        p99: f.lastP99,
        hitRatio: null,
        upPer1000: null,
        cpuUs: f.cpuUsPerEvent,
        note:
          `block → last concerned subscriber's event (p50/p99, ${blocks} blocks, probe every ${PROBE_MS} ms); ` +
          `${f.upPerBlock.toFixed(2)} upstream requests per block (probes and the reader's tx/list reads ` +
          `included); ${f.events} events delivered; ${f.cpuUsPerEvent.toFixed(1)} µs server CPU per delivered event`,
      });
    }
    ctx.ratios.push({
      name: 'w: upstream requests per block, 1100 / 10 activity subscribers',
      value: big.upPerBlock / small.upPerBlock,
      goal: '= 1 (no growth with subscribers or watched entities)',
      pass: big.upPerBlock <= small.upPerBlock * 1.1 + 0.2,
      detail: `${big.upPerBlock.toFixed(2)} vs ${small.upPerBlock.toFixed(2)} per block`,
    });
    // The 10-subscriber round is mostly the fixed per-block work (probes, the reader): the difference is what the
    // events cost.
    ctx.ratios.push({
      name: 'w: marginal server CPU per delivered activity event (µs)',
      value: ((big.cpuS - small.cpuS) * 1e6) / Math.max(1, big.events - small.events),
      goal: 'report',
      pass: null,
      detail:
        `(CPU 1100 − CPU 10) / (events 1100 − events 10): ${((big.cpuS - small.cpuS) * 1e3).toFixed(0)} ms over ` +
        `${big.events - small.events} events; block → last concerned subscriber p50 ${big.lastP50.toFixed(0)} vs ` +
        `${small.lastP50.toFixed(0)} ms, p99 ${big.lastP99.toFixed(0)} vs ${small.lastP99.toFixed(0)} ms`,
    });
  },
};
