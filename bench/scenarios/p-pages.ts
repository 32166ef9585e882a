/**
 * (p) Pages. An explorer session (home, transaction, block and address page
 * views, Zipf-ranked hashes and addresses) replayed two ways, each against its
 * own simulator + proxy (same seed and block interval):
 *
 *   single: each view makes the requests a front end makes today, the parts in
 *           parallel, the dependent ones after (a tx's block after the tx);
 *   pages:  each view is one `/pages/<name>` request.
 *
 * Reported per mode: client requests per page view, upstream requests per 1000
 * page views (simulator deltas, probes included), page-view p50/p99.
 *
 * Then the hot `/pages/home` hit against hot single-endpoint hits on the same
 * proxy (`block/max`, tiny; `tx/list?page_size=60`, a body about the size of
 * the home page), interleaved rounds (ratio of req/s in one run), with server
 * CPU per request (proxy process CPU time from /proc / requests).
 */
import { request } from 'undici';
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { cpuSeconds, getJson, getRaw, sleep } from '../lib/proc.js';
import { startProxyProc, type ProxyProc } from '../lib/proxy.js';
import { startSim, type SimProc } from '../lib/sim.js';
import { rng, weighted, zipf } from '../lib/zipf.js';
import { buildUniverse, type Universe } from './b-mix.js';

const USERS = 20;
const CONNECTIONS = 50;
const PS = 10;

type Mode = 'single' | 'pages';
type View = (mode: Mode, base: string) => Promise<number>;

/** Process CPU time (user + system) of a pid in ms, from /proc. */
function cpuMs(pid: number | undefined): number | null {
  const s = cpuSeconds(pid);
  return s === null ? null : s * 1000;
}

async function fetchJson(url: string): Promise<unknown> {
  const r = await request(url);
  const text = await r.body.text();
  if (r.statusCode !== 200) return null;
  return JSON.parse(text) as unknown;
}

async function all(base: string, paths: string[]): Promise<void> {
  await Promise.all(paths.map((p) => request(base + p).then((r) => r.body.dump())));
}

function session(u: Universe, seed: number): () => View {
  const random = rng(seed);
  const hashRank = zipf(u.hashes.length, 1.0, random);
  const addrRank = zipf(u.addresses.length, 1.0, random);
  const blockBack = zipf(2000, 1.1, random);
  const home: View = async (mode, base) => {
    if (mode === 'pages') return all(base, ['/pages/home']).then(() => 1);
    const parts = [
      '/block/max',
      `/block/list?page=1&page_size=${PS}`,
      `/tx/list?page=1&page_size=${PS}`,
      `/tx/list/pending?page=1&page_size=${PS}`,
      '/tx/count/today',
      '/tx/count/history',
      '/chain/summary',
      '/nax/summary',
    ];
    await all(base, parts);
    return parts.length;
  };
  const tx =
    (hash: string): View =>
    async (mode, base) => {
      if (mode === 'pages') return all(base, [`/pages/tx?hash=${hash}`]).then(() => 1);
      const t = (await fetchJson(`${base}/tx/detail?hash=${hash}`)) as {
        data?: { block_height?: number | null; is_nrc20?: boolean };
      } | null;
      const next = ['/block/max'];
      const h = t?.data?.block_height;
      if (typeof h === 'number') next.push(`/block/detail?h=${h}`);
      if (t?.data?.is_nrc20 === true) next.push('/token/list');
      await all(base, next);
      return 1 + next.length;
    };
  const block =
    (h: number): View =>
    async (mode, base) => {
      if (mode === 'pages') return all(base, [`/pages/block?h=${h}`]).then(() => 1);
      const parts = [`/block/detail?h=${h}`, `/tx/list?block_height=${h}&page=1&page_size=${PS}`, '/block/max'];
      await all(base, parts);
      return parts.length;
    };
  const address =
    (a: string): View =>
    async (mode, base) => {
      if (mode === 'pages') return all(base, [`/pages/address?address=${a}`]).then(() => 1);
      const parts = [
        `/address/info?address=${a}`,
        `/tx/listByAddress?address=${a}&page=1&page_size=${PS}`,
        `/tx/nrc20?address=${a}&page=1&page_size=${PS}`,
        `/nax/profits?address=${a}&page=1&page_size=${PS}`,
      ];
      await all(base, parts);
      return parts.length;
    };
  const elapsedBlocks = (): number => (u.blockIntervalMs > 0 ? Math.floor((Date.now() - u.t0) / u.blockIntervalMs) : 0);
  const pick = weighted<() => View>(
    [
      [50, () => home],
      [25, () => tx(u.hashes[hashRank()]!)],
      [10, () => block(u.head0 + elapsedBlocks() - 1 - blockBack())],
      [15, () => address(u.addresses[addrRank()]!)],
    ],
    random,
  );
  return () => pick()();
}

interface SessionResult {
  views: number;
  clientRequests: number;
  upstream: number;
  p50: number;
  p99: number;
  viewsPerS: number;
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function replay(
  mode: Mode,
  base: string,
  sim: SimProc,
  u: Universe,
  seconds: number,
  warmS: number,
): Promise<SessionResult> {
  const run = async (dur: number, seed: number) => {
    const lat: number[] = [];
    let client = 0;
    const deadline = Date.now() + dur * 1000;
    await Promise.all(
      Array.from({ length: USERS }, async (_, i) => {
        const next = session(u, seed * 100 + i);
        while (Date.now() < deadline) {
          const view = next();
          const t0 = performance.now();
          const n = await view(mode, base);
          client += n;
          lat.push(performance.now() - t0);
        }
      }),
    );
    return { lat, client };
  };
  await run(warmS, 7);
  const s0 = await sim.total();
  const t0 = Date.now();
  const { lat, client } = await run(seconds, 1);
  const s1 = await sim.total();
  return {
    views: lat.length,
    clientRequests: client,
    upstream: s1 - s0,
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    viewsPerS: lat.length / ((Date.now() - t0) / 1000),
  };
}

async function stack(ctx: Ctx, name: string): Promise<{ sim: SimProc; proxy: ProxyProc }> {
  const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: `sim-${name}` });
  const proxy = await startProxyProc([sim.url], {}, `proxy-${name}`);
  return { sim, proxy };
}

export const pages: Scenario = {
  id: 'p',
  title: 'pages: explorer session single-endpoint vs pages; hot /pages/home hit',
  async run(ctx: Ctx) {
    const seconds = ctx.d(20, 6);
    const warm = ctx.d(5, 2);
    const results = new Map<Mode, SessionResult>();
    let hot: { sim: SimProc; proxy: ProxyProc } | null = null;
    for (const mode of ['single', 'pages'] as const) {
      const s = await stack(ctx, mode);
      const u = await buildUniverse(s.sim, ctx.blockIntervalMs, 1000);
      ctx.log(`(p) ${mode} session ${seconds}s…`);
      const r = await replay(mode, s.proxy.url, s.sim, u, seconds, warm);
      results.set(mode, r);
      ctx.rows.push({
        scenario: 'p session',
        target: mode === 'single' ? 'single endpoints' : 'pages',
        rps: r.viewsPerS,
        p50: r.p50,
        p99: r.p99,
        hitRatio: null,
        upPer1000: (r.upstream / r.views) * 1000,
        note:
          `req/s = page views/s; ${(r.clientRequests / r.views).toFixed(2)} ` +
          `client requests per view; upstream per 1000 views; ${USERS} users`,
      });
      if (mode === 'pages') hot = s;
      else await Promise.all([s.proxy.close(), s.sim.close()]);
    }
    const single = results.get('single')!;
    const pg = results.get('pages')!;
    ctx.ratios.push({
      name: 'p: client requests per view, pages / single',
      value: pg.clientRequests / pg.views / (single.clientRequests / single.views),
      goal: 'info',
      pass: null,
      detail: `${(pg.clientRequests / pg.views).toFixed(2)} vs ${(single.clientRequests / single.views).toFixed(2)}`,
    });
    ctx.ratios.push({
      name: 'p: upstream per 1000 views, pages / single',
      value: pg.upstream / pg.views / (single.upstream / single.views),
      goal: 'info',
      pass: null,
      detail:
        `${((pg.upstream / pg.views) * 1000).toFixed(1)} vs ` +
        `${((single.upstream / single.views) * 1000).toFixed(1)}`,
    });

    // Hot hits on the pages stack's proxy: /pages/home vs a single endpoint.
    const { proxy, sim } = hot!;
    try {
      const targets = [
        { name: 'hot /pages/home', path: '/pages/home' },
        { name: 'hot /block/max', path: '/block/max' },
        // A single endpoint with a body about the size of the home page.
        { name: 'hot /tx/list?page_size=60', path: '/tx/list?page=1&page_size=60' },
      ];
      const sizes = new Map<string, number>();
      for (const t of targets) {
        await getRaw(proxy.url + t.path);
        sizes.set(t.name, (await getRaw(proxy.url + t.path)).body.length);
      }
      const dur = ctx.d(2.5, 1);
      const rounds = ctx.quick ? 3 : 6;
      for (const t of targets)
        await runLoad({ url: proxy.url, path: t.path, connections: CONNECTIONS, duration: ctx.d(2, 0.5) });
      const res = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
      const cpu = new Map<string, number>(targets.map((t) => [t.name, 0]));
      const pid = proxy.child.proc.pid;
      const upstream0 = await sim.total();
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          const c0 = cpuMs(pid);
          res
            .get(t.name)!
            .push(await runLoad({ url: proxy.url, path: t.path, connections: CONNECTIONS, duration: dur }));
          const c1 = cpuMs(pid);
          if (c0 !== null && c1 !== null) cpu.set(t.name, cpu.get(t.name)! + (c1 - c0));
        }
      }
      const upstream = (await sim.total()) - upstream0;
      const by = (n: string) => combine(res.get(n)!);
      for (const t of targets) {
        const c = by(t.name);
        const usPerReq = (cpu.get(t.name)! * 1000) / c.total;
        ctx.rows.push({
          scenario: 'p hot hit',
          target: t.name,
          rps: c.rps,
          p50: c.p50,
          p99: c.p99,
          hitRatio: null,
          upPer1000: null,
          note:
            `${sizes.get(t.name)} B body, ${usPerReq.toFixed(0)} µs server ` +
            `CPU/req, ${CONNECTIONS} conns, ${rounds}×${dur}s interleaved`,
        });
      }
      const ratioOf = (a: string, b: string) => {
        const per = res
          .get(a)!
          .map((r, i) => r.rps / res.get(b)![i]!.rps)
          .sort((x, y) => x - y);
        return { median: per[Math.floor(per.length / 2)]!, per };
      };
      for (const other of [targets[1]!, targets[2]!]) {
        const r = ratioOf(targets[0]!.name, other.name);
        const cpuA = (cpu.get(targets[0]!.name)! * 1000) / by(targets[0]!.name).total;
        const cpuB = (cpu.get(other.name)! * 1000) / by(other.name).total;
        ctx.ratios.push({
          name: `p: /pages/home / ${other.path} req/s (hot, median of rounds)`,
          value: r.median,
          goal: '>= 0.9',
          pass: r.median >= 0.9,
          detail:
            `per round ${r.per.map((x) => x.toFixed(2)).join(' ')}; server CPU ${cpuA.toFixed(0)} vs ` +
            `${cpuB.toFixed(0)} µs/req; bodies ${sizes.get(targets[0]!.name)} vs ` +
            `${sizes.get(other.name)} B; upstream during hot runs ${upstream}`,
        });
      }
      const stats = await getJson<{ head: number }>(`${sim.url}/_sim/chain`);
      ctx.notes.push(`(p) head at the end ${stats.head}; machine shared: compare ratios of one run only`);
    } finally {
      await Promise.all([proxy.close(), sim.close()]);
      await sleep(0);
    }
  },
};
