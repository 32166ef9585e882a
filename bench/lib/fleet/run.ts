/**
 * One fleet run of the bench (r): the oracle's lockstep chain and recording
 * wrapper (bench/lib/oracle/), one redis-server, N chainproxy child processes
 * (default settings, REDIS_URL and one PUBLIC_BASE_URL, the balancer's)
 * behind nginx round-robin. Phases: the universe crawl through the balancer
 * (optional), a warm-up, the measured window (the oracle workload, every
 * answer judged), an idle window (no client: the fleet's own upstream
 * requests), then the propagation phase (the workload again, not counted,
 * while every replica is polled directly for the new head). `workers` and
 * `redis: false` (bench (n)): each replica runs WORKERS processes, without Redis.
 */
import { freePort, getJson, sleep } from '../proc.js';
import { startProxyProc, type ProxyProc } from '../proxy.js';
import { startRedis } from '../redis.js';
import { startBalancer } from '../balancer.js';
import { crawl, type Crawl } from '../oracle/crawl.js';
import { drive } from '../oracle/driver.js';
import { startLockstep } from '../oracle/lockstep.js';
import type { Window } from '../oracle/mode.js';
import { startRecorder, type RecorderCounts } from '../oracle/recorder.js';
import { buildUniverse, explorerSampler, universePaths } from '../oracle/workload.js';
import { measurePropagation, type Propagation } from './propagation.js';

export interface FleetOptions {
  replicas: number;
  blockIntervalMs: number;
  jitter: number;
  rate: number;
  crawl: boolean;
  warmS: number;
  windowS: number;
  idleS: number;
  propagationS: number;
  log: (m: string) => void;
  /** WORKERS of each replica (default 1). */
  workers?: number;
  /** false: no redis-server, the replicas share nothing (default true). */
  redis?: boolean;
}

export interface FleetRun {
  /** What the first replica's /status said of the fleet after the warm-up (its member list, from the heartbeats). */
  members: { seen: number; namespaceMismatch: boolean } | null;
  crawl: Crawl | null;
  window: Window;
  idle: RecorderCounts;
  propagation: Propagation;
}

export async function runFleet(o: FleetOptions): Promise<FleetRun> {
  const lock = await startLockstep({ blockIntervalMs: o.blockIntervalMs, jitter: o.jitter });
  const recorder = await startRecorder(lock.upstream.url);
  const redis = o.redis === false ? null : await startRedis();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proxies: ProxyProc[] = [];
  const log = (m: string): void => o.log(`${o.replicas} replica${o.replicas === 1 ? '' : 's'}: ${m}`);
  try {
    for (let i = 0; i < o.replicas; i++)
      proxies.push(
        await startProxyProc(
          [recorder.url],
          {
            ...(redis === null ? {} : { REDIS_URL: redis.url }),
            PUBLIC_BASE_URL: base,
            WORKERS: String(o.workers ?? 1),
          },
          `fleet${o.replicas}x${o.workers ?? 1}-r${i}`,
        ),
      );
    const balancer = await startBalancer(
      port,
      proxies.map((p) => p.url),
    );
    try {
      lock.start();
      const u = buildUniverse(lock.seed, lock.head());
      const sample = explorerSampler(u, () => lock.head());
      const load = (durationS: number) => drive({ proxyUrl: balancer.url, lock, sample, rate: o.rate, durationS });
      let crawled: Crawl | null = null;
      if (o.crawl) {
        log('crawling the universe');
        crawled = await crawl(
          balancer.url,
          universePaths(u, () => lock.head()),
        );
      }
      log(`warm-up ${o.warmS} s`);
      await load(o.warmS);
      const status = await getJson<{ data: { fleet: { members: unknown[]; namespaceMismatch: boolean } | null } }>(
        `${proxies[0]!.url}/status`,
      ).catch(() => null);
      const fleet = status?.data.fleet ?? null;
      const members =
        fleet === null ? null : { seen: fleet.members.length, namespaceMismatch: fleet.namespaceMismatch };
      log(`measuring ${o.windowS} s`);
      recorder.take();
      const h0 = lock.head();
      const tally = await load(o.windowS);
      const h1 = lock.head();
      const window: Window = {
        tally,
        recorder: recorder.take(),
        blocks: h1 - h0,
        internalCredits: lock.internalTransfers ? lock.creditsIn(h0, h1) : null,
        ended: null,
      };
      log(`idle ${o.idleS} s`);
      await sleep(o.idleS * 1000);
      const idle = recorder.take();
      log(`propagation ${o.propagationS} s (the workload again, not counted)`);
      const [propagation] = await Promise.all([
        measurePropagation(
          proxies.map((p) => p.url),
          lock,
          o.propagationS,
        ),
        load(o.propagationS),
      ]);
      return { members, crawl: crawled, window, idle, propagation };
    } finally {
      await balancer.close();
    }
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await redis?.close();
    await recorder.close();
    await lock.close();
  }
}
