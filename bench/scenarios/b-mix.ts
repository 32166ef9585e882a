/**
 * (b) Explorer-like mix, through the proxy and through nginx (each in front of
 * its own simulator, same seed and block interval):
 *
 *   block/max polling, list heads (tx/list, block/list, pending, a few next
 *   pages), tx/detail of Zipf-ranked real hashes (recent first), address/info
 *   and tx/listByAddress of Zipf-ranked real addresses, final and non-final
 *   block/detail, token list and daily summaries.
 *
 * URLs come as browsers/SDKs send them: some spell the defaults out
 * (`?page=1&page_size=20`), parameter order varies, and 2 % carry a jQuery
 * `_=<ms>` cache buster. A warm-up precedes the measured window (steady state).
 *
 * Measured: hit ratio (proxy /metrics deltas; nginx $upstream_cache_status),
 * upstream requests per 1000 (simulator /_sim/stats deltas, probes included),
 * and block/max freshness: a poller compares every block/max answer with the
 * simulator's head and reports how long after a newer block appeared the
 * answer was still the old one.
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { getJson, sleep } from '../lib/proc.js';
import { PROBE_INTERVAL_MS, diffCounts, hitRatio } from '../lib/proxy.js';
import { nginxHitRatio } from '../lib/nginx.js';
import type { SimProc } from '../lib/sim.js';
import { rng, weighted, zipf } from '../lib/zipf.js';

export interface Universe {
  hashes: string[];
  addresses: string[];
  head0: number;
  t0: number;
  blockIntervalMs: number;
}

interface TxRow {
  tx_hash?: string;
  hash?: string;
  address_from?: string;
  from?: string;
  address_to?: string;
  to?: string;
}

export async function buildUniverse(sim: SimProc, blockIntervalMs: number, nHashes = 2000): Promise<Universe> {
  const hashes: string[] = [];
  const addresses = new Set<string>();
  const head0 = await sim.head();
  const t0 = Date.now();
  // Recent pages first (rank 0 = newest), then a sprinkle of older ones.
  const pages = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50, 200, 1000, 5000, 20000, 60000];
  for (const page of pages) {
    if (hashes.length >= nHashes) break;
    const body = await getJson<{ data: { list: TxRow[] } }>(`${sim.url}/tx/list?page=${page}&page_size=100`);
    for (const tx of body.data.list) {
      const h = tx.tx_hash ?? tx.hash;
      if (h) hashes.push(h);
      const from = tx.address_from ?? tx.from;
      const to = tx.address_to ?? tx.to;
      if (from) addresses.add(from);
      if (to) addresses.add(to);
    }
  }
  return { hashes: hashes.slice(0, nHashes), addresses: [...addresses], head0, t0, blockIntervalMs };
}

/** A sampler of explorer-like request paths (seeded, so proxy and nginx get the same sequence). */
export function mixSampler(u: Universe, seed = 42): () => string {
  const random = rng(seed);
  const txRank = zipf(u.hashes.length, 1.0, random);
  const addrRank = zipf(u.addresses.length, 1.0, random);
  const blockRank = zipf(3000, 1.0, random);
  const estHead = (): number =>
    u.head0 + (u.blockIntervalMs > 0 ? Math.floor((Date.now() - u.t0) / u.blockIntervalMs) : 0);
  const variant = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const pick = weighted<() => string>(
    [
      [15, () => '/block/max'],
      [
        10,
        () => variant(['/tx/list', '/tx/list?page=1', '/tx/list?page_size=20&page=1', '/tx/list?page=1&page_size=20']),
      ],
      [6, () => variant(['/block/list', '/block/list?page=1', '/block/list?page_size=20&page=1'])],
      [3, () => '/tx/list/pending'],
      [4, () => `/tx/list?page=${2 + Math.floor(random() * 4)}`],
      [22, () => `/tx/detail?hash=${u.hashes[txRank()]}`],
      [8, () => `/address/info?address=${u.addresses[addrRank()]}`],
      [
        7,
        () => {
          const a = u.addresses[addrRank()];
          return variant([
            `/tx/listByAddress?address=${a}`,
            `/tx/listByAddress?address=${a}&page=1`,
            `/tx/listByAddress?page=1&address=${a}`,
          ]);
        },
      ],
      [12, () => `/block/detail?h=${u.head0 - 20 - blockRank()}`],
      [5, () => `/block/detail?h=${estHead() - 2 - Math.floor(random() * 10)}`],
      [3, () => '/token/list'],
      [2, () => '/chain/summary'],
      [2, () => '/tx/count/today'],
    ],
    random,
  );
  return () => {
    const p = pick()();
    return random() < 0.02 ? `${p}${p.includes('?') ? '&' : '?'}_=${Date.now()}` : p;
  };
}

/** Polls block/max through `url` and the simulator head; worst staleness and backward steps. */
export function freshnessPoller(
  url: string,
  sim: SimProc,
  everyMs = 100,
): { stop(): Promise<{ maxStaleMs: number; samples: number; backwards: number }> } {
  const firstSeen = new Map<number, number>();
  let maxStaleMs = 0;
  let samples = 0;
  let backwards = 0;
  let last = -1;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const head = await sim.head();
        if (!firstSeen.has(head)) firstSeen.set(head, Date.now());
        const r = await fetch(`${url}/block/max`, { signal: AbortSignal.timeout(5000) });
        const t = Date.now();
        const h = Math.round(Number(((await r.json()) as { data: { height: number } }).data.height));
        samples++;
        if (h < last) backwards++;
        last = Math.max(last, h);
        const newer = firstSeen.get(h + 1);
        if (newer !== undefined) maxStaleMs = Math.max(maxStaleMs, t - newer);
      } catch {
        /* counted by the load generator */
      }
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { maxStaleMs, samples, backwards };
    },
  };
}

export const CONNECTIONS = 50;

export const mix: Scenario = {
  id: 'b',
  title: 'explorer-like mix',
  async run(ctx: Ctx) {
    const { sim, proxy } = await ctx.proxyStack();
    const ng = await ctx.nginxStack();
    const u = await buildUniverse(sim, ctx.blockIntervalMs);
    // The same request sequences (seeded) and counts for every target, so upstream
    // requests per 1000 compare like with like whatever each target's speed.
    const warm = ctx.d(20_000, 3_000);
    const amount = ctx.d(60_000, 8_000);
    ctx.notes.push(
      `(b) mix: ${u.hashes.length} tx hashes, ${u.addresses.length} addresses, 3000 final blocks, Zipf ` +
        `s=1; ${warm} warm-up then ${amount} measured requests per target; ${CONNECTIONS} connections.`,
    );

    const targets = [
      { name: 'proxy', url: proxy.url, sim },
      ...(ng ? [{ name: 'nginx', url: ng.nginx.url, sim: ng.sim }] : []),
    ];
    const out: Record<string, { up: number; total: number }> = {};
    for (const t of targets) {
      const u2 = { ...u, head0: await t.sim.head(), t0: Date.now() };
      await runLoad({ url: t.url, sample: mixSampler(u2, 7), connections: CONNECTIONS, amount: warm });
      const c0 = t.name === 'proxy' ? await proxy.cacheCounts() : null;
      if (t.name === 'nginx') await ng!.nginx.mark();
      const e0 = (await t.sim.stats()).requests;
      const s0 = await t.sim.total();
      const poller = freshnessPoller(t.url, t.sim);
      const r = await runLoad({ url: t.url, sample: mixSampler(u2, 42), connections: CONNECTIONS, amount });
      const fresh = await poller.stop();
      const up = (await t.sim.total()) - s0;
      const e1 = (await t.sim.stats()).requests;
      const perEndpoint = Object.entries(e1)
        .filter(([k]) => !k.startsWith('_'))
        .map(([k, v]) => [k, v - (e0[k] ?? 0)] as const)
        .filter(([, v]) => v > 0)
        .sort((x, y) => y[1] - x[1])
        .map(([k, v]) => `${k} ${((v / r.total) * 1000).toFixed(1)}`);
      ctx.notes.push(
        `(b) ${t.name}: upstream requests per 1000 client requests by endpoint: ${perEndpoint.join(', ')}`,
      );
      const hr = c0 ? hitRatio(diffCounts(c0, await proxy.cacheCounts())) : nginxHitRatio(await ng!.nginx.counts());
      const c = combine([r]);
      out[t.name] = { up, total: r.total };
      const bad = r.non2xx + r.errors;
      ctx.rows.push({
        scenario: 'b explorer mix',
        target: t.name,
        rps: c.rps,
        p50: c.p50,
        p99: c.p99,
        hitRatio: hr,
        upPer1000: (up / r.total) * 1000,
        note:
          `block/max max staleness ${fresh.maxStaleMs} ms (${fresh.samples} polls, ` +
          `${fresh.backwards} backwards)${bad ? `; ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
      });
      if (t.name === 'proxy') {
        ctx.ratios.push({
          name: 'b: proxy hit ratio on the mix',
          value: hr,
          goal: '>= 0.95',
          pass: hr === null ? null : hr >= 0.95,
          detail: `${r.total} requests`,
        });
        ctx.ratios.push({
          name: 'b: proxy block/max staleness / probe interval',
          value: fresh.maxStaleMs / PROBE_INTERVAL_MS,
          goal: '<= 1 (and 0 backwards)',
          pass: fresh.maxStaleMs <= PROBE_INTERVAL_MS && fresh.backwards === 0,
          detail: `worst ${fresh.maxStaleMs} ms vs probe ${PROBE_INTERVAL_MS} ms (poll granularity ~100 ms)`,
        });
      }
    }
    if (out.proxy && out.nginx) {
      const p = (out.proxy.up / out.proxy.total) * 1000;
      const n = (out.nginx.up / out.nginx.total) * 1000;
      ctx.ratios.push({
        name: 'b: proxy / nginx upstream req per 1000 (mix)',
        value: p / n,
        goal: '< 1',
        pass: p < n,
        detail: `${p.toFixed(1)} vs ${n.toFixed(1)} per 1000`,
      });
    }
  },
};
