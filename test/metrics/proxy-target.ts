/**
 * The dashboard test's scrape target: the real proxy (src/app.ts) with a Redis
 * tier, in front of two simulators, under an HTTP load loop that exercises
 * every series the dashboard reads: hits, misses, stale answers, client
 * errors, single-flight joins, retries and hedges (one upstream is slow and
 * flaky), head moves and refresh-ahead, load shedding (small upstream queues,
 * bursts of distinct cold keys), pages, a head-stream subscriber, passthrough
 * routes (one to a dead port), API keys (one over its budget, one unknown),
 * miss budgets (anonymous clients spread over many forwarded addresses, one
 * scanner of distinct cold keys refused with 4292), quorum votes on final
 * blocks (UPSTREAM_QUORUM 2) and a third upstream claiming a head far ahead,
 * which the other two refute (it sits out); precise invalidation with the
 * adaptive probe cadence (blocks read whole; once the chain jumps past the
 * reader's reach: fallbacks; a page about a block far above the head: a fact
 * not trusted),
 * address pages of addresses the coming blocks name (every fourth round: in every
 * round they kept the liar from being refuted within the test's window), and an
 * activity stream watching those addresses.
 */
import { request } from 'undici';
import { defaultConfig } from '../../src/config/defaults.js';
import { blockNames, startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import { startRedisServer } from '../helpers/redis-server.js';

export interface MetricsTarget {
  /** `host:port` Prometheus scrapes. */
  target: string;
  metricsPath: string;
  /** Stops the traffic and the server. */
  close(): Promise<void>;
}

export type StartMetricsTarget = () => Promise<MetricsTarget>;

const PATHS = [
  '/block/max',
  '/tx/list?page_size=5',
  '/block/list?page=1&page_size=5',
  '/tx/list/pending',
  '/token/list',
  '/chain/summary',
  '/tx/count/today',
  '/holders?page=2',
  '/nax/summary',
  '/block/detail?h=4800000', // a final block: the final height becomes known
  '/tx/list?block_height=99999999&page=1&page_size=5', // about a block above the head: not trusted (future-height)
  '/tx/list?page=0', // 400: a client error
  '/pages/home',
  '/legacy/block/max', // passthrough to a simulator
  '/dead/x', // passthrough to a dead port: 502
];

const EXPLORER_KEY = 'explorer-key-0123456789';
const TINY_KEY = 'tiny-key-0123456789abc';
/** Per round: the API key (or none) the requests carry. */
const KEYS = [null, EXPLORER_KEY, TINY_KEY, 'unknown-key-0123456789'];

/** Anonymous traffic comes from this many forwarded addresses, so no single one spends its miss budget. */
const CLIENTS = 200;
/** Least time between two rounds of the load loop. */
const ROUND_MS = 20;
/** Forwarded address of the client that asks only for distinct cold keys. */
const SCANNER = '203.0.113.66';
/** Blocks the third upstream claims beyond the others. */
const LIAR_AHEAD = 50_000;
/** A jump past the block reader's reach (64 blocks back). */
const GAP_JUMP = 80;

export const startProxyTarget: StartMetricsTarget = async () => {
  const redis = await startRedisServer();
  const startTime = Date.now();
  const sims: SimulatorHandle[] = await Promise.all(
    [0, 1, 2].map(() => startSimulator({ blockIntervalMs: 0, startTime })),
  );
  // u1 is slow and fails half of its requests: hedges, retries and upstream errors show up.
  sims[1]?.setFaults({ latencyMs: 120, errorRate: 0.5, kind: 'http500' });
  // u2 reports a head far ahead that no other upstream confirms: refuted, it sits out.
  sims[2]?.chain.advance(LIAR_AHEAD);
  // Addresses the next blocks name: their pages get invalidated by tag, and the activity stream watches them.
  const head = sims[0]!.chain.head();
  const named = [...new Set(Array.from({ length: 30 }, (_, i) => [...blockNames(1, head + 1 + i)]).flat())].slice(
    0,
    40,
  );
  const addressPaths = named.flatMap((a) => [`/address/info?address=${a}`, `/tx/listByAddress?address=${a}`]);
  const proxy = await startTestProxy(
    sims.map((s) => s.url),
    {
      redisUrl: redis.url,
      upstream: {
        probeIntervalMs: 200,
        probeDenseMs: 50,
        hedgeAfterMs: 30,
        hedgeQuantile: 0,
        breakerFailures: 1000,
        connections: 2,
        maxQueue: 1,
        quorum: 2,
      },
      policies: { 'tx/list': { ttlMs: 200, swrMs: 5000 }, 'block/list': { ttlMs: 200, swrMs: 5000 } },
      rateLimit: { enabled: true, max: 1_000_000 },
      missBudget: 40,
      trustProxy: ['loopback'],
      apiKeys: [
        { name: 'explorer', key: EXPLORER_KEY, max: 1_000_000 },
        { name: 'tiny', key: TINY_KEY, max: 1, windowMs: 3_600_000 },
      ],
      passthrough: {
        routes: [
          { prefix: '/legacy', target: sims[0]!.url },
          { prefix: '/dead', target: 'http://127.0.0.1:9' },
        ],
        timeoutMs: 2000,
        cache: {},
        ignoreParams: [],
        cacheMaxBodyBytes: 1024 * 1024,
      },
      refreshAhead: { maxKeys: 12 },
      // A block read's deadline a loaded machine meets: blocks are read whole (the jump makes the fallbacks).
      invalidation: { ...defaultConfig().invalidation, mode: 'precise', readTimeoutMs: 10_000 },
    },
  );
  // One head-stream subscriber reading every event.
  const stream = await request(`${proxy.url}/stream/heads`);
  const reading = stream.body.dump({ limit: Number.MAX_SAFE_INTEGER }).catch(() => undefined);
  // One activity stream watching the named addresses.
  const activity = await request(`${proxy.url}/stream/activity?${named.map((a) => `address=${a}`).join('&')}`);
  const readingActivity = activity.body.dump({ limit: Number.MAX_SAFE_INTEGER }).catch(() => undefined);
  let stopped = false;
  let round = 0;
  const loop = (async () => {
    while (!stopped) {
      // Paced (a round at most every ROUND_MS): the load exercises every subsystem, it does not take a core.
      const paced = new Promise((r) => setTimeout(r, ROUND_MS));
      round += 1;
      if (round % 20 === 0) for (const s of sims) s.chain.advance(1);
      // Once, the chain jumps further than the reader goes back: the blocks left behind fall back (gap).
      if (round === 300) for (const s of sims) s.chain.advance(GAP_JUMP);
      const path = PATHS[round % PATHS.length] ?? '/block/max';
      const addressPath = addressPaths[round % addressPaths.length] ?? '/block/max';
      // Bursts of identical cold requests join one flight.
      const cold = `/tx/list?page=${1000 + round}`;
      const key = KEYS[round % KEYS.length];
      const headers =
        key === null || key === undefined
          ? { 'x-forwarded-for': `198.51.100.${round % CLIENTS}` }
          : { 'x-api-key': key };
      const scan = [0, 1].map((i) => `/tx/list?page=${500_000 + round * 2 + i}`);
      // Every tenth round a burst of distinct cold keys overflows the small upstream queues (503, shed).
      const burst =
        round % 10 === 0 ? Array.from({ length: 12 }, (_, i) => `/block/detail?h=${4_700_000 + round * 12 + i}`) : [];
      await Promise.all([
        ...[path, ...(round % 4 === 1 ? [addressPath] : []), cold, cold, cold, ...burst].map(async (p) => {
          const res = await request(`${proxy.url}${p}`, { headers });
          await res.body.dump();
        }),
        ...scan.map(async (p) => {
          const res = await request(`${proxy.url}${p}`, { headers: { 'x-forwarded-for': SCANNER } });
          await res.body.dump();
        }),
        paced,
      ]);
    }
  })();
  const { port } = new URL(proxy.url);
  return {
    target: `127.0.0.1:${port}`,
    metricsPath: '/metrics',
    async close() {
      stopped = true;
      await loop;
      await proxy.close();
      await reading;
      await readingActivity;
      for (const s of sims) await s.close();
      await redis.stop();
    },
  };
};
