/**
 * (h) Push: the head stream and refresh-ahead.
 *
 * Fan-out: N concurrent SSE subscribers (1000, and 10 for comparison) on a
 * proxy in front of a simulator whose blocks are produced on command. For each
 * block: time from producing it to the first and to the last subscriber's
 * event (the proxy learns heads by probing, UPSTREAM_PROBE_INTERVAL_MS=200
 * here), and the upstream requests the block cost (probes included), which
 * must not grow with N. Server CPU per delivered event from the proxy's
 * process_cpu_seconds_total.
 *
 * Resume storm: N subscribers reconnecting at once with a Last-Event-ID
 * 1000 events back (a replica restart behind a load balancer): time until each
 * has the whole paced replay, and how many the proxy dropped (must be 0).
 *
 * Refresh-ahead: the explorer mix of (b) (same sampler, universe and
 * freshness poller) against two proxies, REFRESH_AHEAD_MAX_KEYS default vs 0,
 * each with its own simulator; hit ratio, upstream requests per 1000, and
 * block/max staleness.
 */
import { request } from 'node:http';
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { getJson } from '../lib/proc.js';
import { PROBE_INTERVAL_MS, diffCounts, hitRatio, startProxyProc, type ProxyProc } from '../lib/proxy.js';
import { startSim, type SimProc } from '../lib/sim.js';
import { CONNECTIONS, buildUniverse, freshnessPoller, mixSampler } from './b-mix.js';

const FANOUT_PROBE_MS = 200;

interface Subscriber {
  /** performance.now() at which each height's event arrived. */
  arrivals: Map<number, number>;
  close(): void;
}

function subscribe(url: string, lastEventId?: number): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    const req = request(`${url}/stream/heads`, { agent: false, headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: HTTP ${res.statusCode}`));
      let tail = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        const text = tail + chunk;
        for (const m of text.matchAll(/(?:^|\n)id: (\d+)\n/g))
          if (!arrivals.has(Number(m[1]))) arrivals.set(Number(m[1]), now);
        tail = text.slice(-40);
      });
      res.on('error', () => undefined);
      resolve({ arrivals, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const HEAD_ENDPOINTS = ['block/max', 'block/list', 'tx/list', 'tx/list/pending'];

/** HIT+STALE and all answers of the endpoints that move with the head (what refresh-ahead is for). */
async function headCounts(url: string): Promise<{ hits: number; all: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let hits = 0;
  let all = 0;
  for (const m of text.matchAll(/^chainproxy_requests_total\{([^}]*)\} (\S+)$/gm)) {
    const endpoint = /endpoint="([^"]+)"/.exec(m[1]!)?.[1];
    if (endpoint === undefined || !HEAD_ENDPOINTS.includes(endpoint)) continue;
    all += Number(m[2]);
    if (/cache="(HIT|STALE)"/.test(m[1]!)) hits += Number(m[2]);
  }
  return { hits, all };
}

async function cpuSeconds(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? NaN);
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function fanout(
  ctx: Ctx,
  n: number,
  blocks: number,
): Promise<{ lastP50: number; lastP99: number; spreadP50: number; upPerBlock: number; cpuUsPerEvent: number }> {
  const sim = await startSim({ blockIntervalMs: 0, name: `sim-h${n}` });
  const proxy = await startProxyProc(
    [sim.url],
    { UPSTREAM_PROBE_INTERVAL_MS: String(FANOUT_PROBE_MS), MAX_STREAMS: '100000', STREAM_MAX_PER_CLIENT: '100000' },
    `proxy-h${n}`,
  );
  const subs: Subscriber[] = [];
  try {
    for (let i = 0; i < n; i += 100)
      subs.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => subscribe(proxy.url)))));
    const last: number[] = [];
    const spread: number[] = [];
    let up = 0;
    const cpu0 = await cpuSeconds(proxy.url);
    for (let b = 0; b < blocks; b++) {
      const before = await sim.total();
      const t0 = performance.now();
      const { head } = await getJson<{ head: number }>(`${sim.url}/_sim/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":1}',
      });
      const deadline = Date.now() + 10_000;
      while (subs.some((s) => !s.arrivals.has(head)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 5));
      const times = subs.map((s) => s.arrivals.get(head)).filter((t): t is number => t !== undefined);
      if (times.length < subs.length)
        ctx.notes.push(`(h) ${subs.length - times.length} of ${n} subscribers missed head ${head}`);
      last.push(Math.max(...times) - t0);
      spread.push(Math.max(...times) - Math.min(...times));
      // Let the block's refresh settle, then count what it cost upstream (probes included).
      await new Promise((r) => setTimeout(r, FANOUT_PROBE_MS * 2));
      up += (await sim.total()) - before;
    }
    const cpu = (await cpuSeconds(proxy.url)) - cpu0;
    return {
      lastP50: pct(last, 0.5),
      lastP99: pct(last, 0.99),
      spreadP50: pct(spread, 0.5),
      upPerBlock: up / blocks,
      cpuUsPerEvent: (cpu * 1e6) / (blocks * n),
    };
  } finally {
    for (const s of subs) s.close();
    await proxy.close();
    await sim.close();
  }
}

async function streamCounter(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

async function advanceTo(sim: SimProc, watcher: Subscriber, n: number): Promise<number> {
  let head = 0;
  for (let left = n; left > 0; left -= 100) {
    ({ head } = await getJson<{ head: number }>(`${sim.url}/_sim/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: Math.min(100, left) }),
    }));
    const deadline = Date.now() + 10_000;
    while (!watcher.arrivals.has(head) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }
  return head;
}

async function resumeStorm(
  n: number,
  back: number,
): Promise<{ p50: number; p99: number; complete: number; dropped: number }> {
  const sim = await startSim({ blockIntervalMs: 0, name: `sim-h-resume` });
  const proxy = await startProxyProc(
    [sim.url],
    { UPSTREAM_PROBE_INTERVAL_MS: String(FANOUT_PROBE_MS), MAX_STREAMS: '100000', STREAM_MAX_PER_CLIENT: '100000' },
    `proxy-h-resume`,
  );
  const subs: Subscriber[] = [];
  try {
    const watcher = await subscribe(proxy.url);
    subs.push(watcher);
    const head = await advanceTo(sim, watcher, back);
    const t0 = performance.now();
    const storm = await Promise.all(Array.from({ length: n }, () => subscribe(proxy.url, head - back)));
    subs.push(...storm);
    const deadline = Date.now() + 30_000;
    while (storm.some((s) => !s.arrivals.has(head)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    const done = storm
      .map((s) => s.arrivals.get(head))
      .filter((t): t is number => t !== undefined)
      .map((t) => t - t0);
    const complete = storm.filter((s) => s.arrivals.size === back).length;
    return {
      p50: pct(done, 0.5),
      p99: pct(done, 0.99),
      complete,
      dropped: await streamCounter(proxy.url, 'chainproxy_stream_clients_dropped_total'),
    };
  } finally {
    for (const s of subs) s.close();
    await proxy.close();
    await sim.close();
  }
}

async function mixRun(
  ctx: Ctx,
  name: string,
  env: Record<string, string>,
  blockIntervalMs: number,
): Promise<{ hr: number | null; headHr: number; up1000: number; staleMs: number; rps: number }> {
  const sim: SimProc = await startSim({ blockIntervalMs, name: `sim-${name}` });
  const proxy: ProxyProc = await startProxyProc([sim.url], env, `proxy-${name}`);
  try {
    const u = await buildUniverse(sim, blockIntervalMs);
    const u2 = { ...u, head0: await sim.head(), t0: Date.now() };
    await runLoad({
      url: proxy.url,
      sample: mixSampler(u2, 7),
      connections: CONNECTIONS,
      amount: ctx.d(20_000, 3_000),
    });
    const c0 = await proxy.cacheCounts();
    const h0 = await headCounts(proxy.url);
    const s0 = await sim.total();
    const e0 = (await sim.stats()).requests;
    const poller = freshnessPoller(proxy.url, sim);
    const r = await runLoad({
      url: proxy.url,
      sample: mixSampler(u2, 42),
      connections: CONNECTIONS,
      amount: ctx.d(60_000, 10_000),
    });
    const fresh = await poller.stop();
    const up = (await sim.total()) - s0;
    const e1 = (await sim.stats()).requests;
    const perEndpoint = Object.entries(e1)
      .filter(([k]) => !k.startsWith('_'))
      .map(([k, v]) => [k, v - (e0[k] ?? 0)] as const)
      .filter(([, v]) => v > 0)
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k} ${((v / r.total) * 1000).toFixed(1)}`);
    ctx.notes.push(`(h) ${name}: upstream requests per 1000 client requests by endpoint: ${perEndpoint.join(', ')}`);
    const hr = hitRatio(diffCounts(c0, await proxy.cacheCounts()));
    const h1 = await headCounts(proxy.url);
    const headHr = (h1.hits - h0.hits) / Math.max(1, h1.all - h0.all);
    const c = combine([r]);
    ctx.rows.push({
      scenario: 'h explorer mix',
      target: name,
      rps: c.rps,
      p50: c.p50,
      p99: c.p99,
      hitRatio: hr,
      upPer1000: (up / r.total) * 1000,
      note:
        `blocks every ${blockIntervalMs} ms; hit ratio of block/max, block/list, tx/list, ` +
        `tx/list/pending ${(headHr * 100).toFixed(2)} %; block/max max staleness ` +
        `${fresh.maxStaleMs} ms (${fresh.samples} polls, ${fresh.backwards} backwards)`,
    });
    return { hr, headHr, up1000: (up / r.total) * 1000, staleMs: fresh.maxStaleMs, rps: c.rps };
  } finally {
    await proxy.close();
    await sim.close();
  }
}

export const stream: Scenario = {
  id: 'h',
  title: 'push: head stream fan-out, refresh-ahead on the mix',
  async run(ctx: Ctx) {
    const blocks = ctx.d(20, 6);
    const small = await fanout(ctx, 10, blocks);
    const big = await fanout(ctx, 1000, blocks);
    for (const [n, f] of [
      [10, small],
      [1000, big],
    ] as const) {
      ctx.rows.push({
        scenario: 'h head stream',
        target: `proxy, ${n} subscribers`,
        rps: null,
        p50: f.lastP50,
        p99: f.lastP99,
        hitRatio: null,
        upPer1000: null,
        note:
          `block → last subscriber's event (p50/p99 columns, ${blocks} blocks, probe every ${FANOUT_PROBE_MS} ` +
          `ms); first→last subscriber p50 ${f.spreadP50.toFixed(1)} ms; ${f.upPerBlock.toFixed(1)} upstream ` +
          `requests per block (probes included); ${f.cpuUsPerEvent.toFixed(1)} µs server CPU per delivered event`,
      });
    }
    ctx.ratios.push({
      name: 'h: upstream requests per block, 1000 / 10 subscribers',
      value: big.upPerBlock / small.upPerBlock,
      goal: '≈ 1 (constant in N)',
      pass: big.upPerBlock <= small.upPerBlock * 1.25 + 0.5,
      detail: `${big.upPerBlock.toFixed(1)} vs ${small.upPerBlock.toFixed(1)} per block`,
    });
    ctx.ratios.push({
      name: 'h: block → last subscriber, 1000 / 10 subscribers (p50)',
      value: big.lastP50 / small.lastP50,
      goal: 'report (the probe wait, up to one interval, is in both)',
      pass: null,
      detail:
        `1000: p50 ${big.lastP50.toFixed(0)} ms, p99 ${big.lastP99.toFixed(0)} ms, first→last p50 ` +
        `${big.spreadP50.toFixed(1)} ms; 10: p50 ${small.lastP50.toFixed(0)} ms, p99 ${small.lastP99.toFixed(0)} ms`,
    });

    const stormN = ctx.d(200, 50);
    const storm = await resumeStorm(stormN, 1000);
    ctx.rows.push({
      scenario: 'h resume storm',
      target: `proxy, ${stormN} subscribers resuming 1000 events back`,
      rps: null,
      p50: storm.p50,
      p99: storm.p99,
      hitRatio: null,
      upPer1000: null,
      note:
        'connect → whole paced replay (p50/p99 columns); ' +
        `${storm.complete}/${stormN} got all 1000 events; ${storm.dropped} dropped as slow`,
    });
    ctx.ratios.push({
      name: 'h: resume storm, subscribers with the whole replay',
      value: storm.complete / stormN,
      goal: '= 1, none dropped',
      pass: storm.complete === stormN && storm.dropped === 0,
      detail:
        `${stormN} subscribers, 1000 events back each; p50 ` +
        `${storm.p50.toFixed(0)} ms, p99 ${storm.p99.toFixed(0)} ms`,
    });

    // Short windows need blocks to happen inside them.
    const interval = Math.min(ctx.blockIntervalMs, ctx.quick ? 2000 : 5000);
    const withRa = await mixRun(ctx, 'refresh-ahead on', {}, interval);
    const without = await mixRun(ctx, 'refresh-ahead off', { REFRESH_AHEAD_MAX_KEYS: '0' }, interval);
    ctx.ratios.push({
      name: 'h: mix hit ratio with refresh-ahead',
      value: withRa.hr,
      goal: '>= 0.97',
      pass: withRa.hr === null ? null : withRa.hr >= 0.97,
      detail: `without: ${without.hr === null ? '–' : (without.hr * 100).toFixed(1)} %; blocks every ${interval} ms`,
    });
    ctx.ratios.push({
      name: 'h: misses on the head endpoints, refresh-ahead on / off',
      value: (1 - withRa.headHr) / Math.max(1e-9, 1 - without.headHr),
      goal: '< 1',
      pass: withRa.headHr > without.headHr,
      detail:
        'hit ratio of block/max, block/list, tx/list, tx/list/pending: ' +
        `${(withRa.headHr * 100).toFixed(2)} % vs ${(without.headHr * 100).toFixed(2)} %`,
    });
    ctx.ratios.push({
      name: 'h: upstream req per 1000, refresh-ahead on / off',
      value: withRa.up1000 / without.up1000,
      goal: 'report',
      pass: null,
      detail:
        `${withRa.up1000.toFixed(1)} vs ${without.up1000.toFixed(1)} per 1000; block/max ` +
        `staleness ${withRa.staleMs} vs ${without.staleMs} ms (probe ${PROBE_INTERVAL_MS} ms)`,
    });
  },
};
