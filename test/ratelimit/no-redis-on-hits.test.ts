/**
 * A fresh memory hit sends no Redis command, with the limiter on and REDIS_URL
 * set: over a burst of hits, MONITOR on a real redis-server sees only the
 * limiter's background reconciliation (at most one INCRBY + PEXPIRE per
 * active client per round, rounds every 100 ms) and never a cache-tier key.
 * The same burst with Redis blackholed is answered without delay.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startLimitedReplica, type LimitedReplica } from './kit.js';

const describe = describeRedis();
const HITS = 600;
const PATH = '/block/detail?h=42';
/**
 * Redis's command deadline, and what a request waiting on Redis would take at
 * least: long, so that a hit slowed only by a loaded machine is not mistaken
 * for one that waited on Redis.
 */
const COMMAND_TIMEOUT_MS = 1000;

async function burst(url: string, n: number): Promise<{ statuses: Set<number>; cache: Set<string>; slow: number }> {
  const statuses = new Set<number>();
  const cache = new Set<string>();
  let slow = 0;
  const worker = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const r = await request(url + PATH);
      await r.body.arrayBuffer();
      if (performance.now() - t0 >= COMMAND_TIMEOUT_MS) slow++;
      statuses.add(r.statusCode);
      cache.add(String(r.headers['x-cache']));
    }
  };
  await Promise.all(Array.from({ length: 10 }, () => worker(n / 10)));
  return { statuses, cache, slow };
}

describe('no Redis command on the path of a fresh memory hit', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let replica: LimitedReplica;
  let monitor: Redis | null = null;

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    replica = await startLimitedReplica([sim.url], {
      redisUrl: redis.url,
      rateLimit: { max: 1_000_000 },
      redis: { commandTimeoutMs: COMMAND_TIMEOUT_MS },
    });
  });
  afterAll(async () => {
    monitor?.disconnect();
    await replica?.close();
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('sends only the batched reconciliation, whatever the number of hits', async () => {
    // miss, routed hit, remembered
    for (let i = 0; i < 3; i++) await (await request(replica.url + PATH)).body.arrayBuffer();
    await replica.limiter!.sync();
    const client = new Redis(redis.url);
    const seen: string[][] = [];
    const m = await client.monitor();
    monitor = m;
    m.on('monitor', (_time: string, args: string[]) => seen.push(args));
    client.disconnect();
    await new Promise((r) => setTimeout(r, 50)); // MONITOR is on once its reply is in; let it settle

    const t0 = performance.now();
    const { statuses, cache } = await burst(replica.url, HITS);
    const elapsedMs = performance.now() - t0;
    m.disconnect();
    monitor = null;

    expect([...statuses]).toEqual([200]);
    expect([...cache]).toEqual(['HIT']);
    const prefix = 'chainproxy:';
    const commands = seen.map((a) => a.map(String));
    const limiterKeys = commands.filter((a) => (a[1] ?? '').startsWith(`${prefix}{rl}:`));
    // The fleet's member heartbeat (every REDIS_HEARTBEAT_MS) is background work too, never a hit's.
    const heartbeat = commands.filter((a) => (a[1] ?? '') === `${prefix}fleet:members`);
    const cacheTier = commands.filter(
      (a) => (a[1] ?? '').startsWith(prefix) && !(a[1] ?? '').startsWith(`${prefix}{rl}:`) && !heartbeat.includes(a),
    );
    expect(heartbeat.length).toBeLessThanOrEqual(3 * (Math.ceil(elapsedMs / 5000) + 1));
    expect(cacheTier, JSON.stringify(cacheTier.slice(0, 5))).toEqual([]);
    const rounds = Math.ceil(elapsedMs / 100) + 2;
    expect(limiterKeys.filter((a) => a[0]?.toLowerCase() === 'incrby').length).toBeLessThanOrEqual(rounds);
    // Everything Redis saw is a small constant per round, far below one per hit.
    expect(commands.length).toBeLessThan(3 * rounds + 10);
    expect(commands.length).toBeLessThan(HITS / 4);
  });

  it('answers the same burst without delay while Redis is blackholed', async () => {
    redis.pause();
    try {
      const { statuses, slow } = await burst(replica.url, 200);
      expect([...statuses]).toEqual([200]);
      // Waiting for Redis would cost the command timeout on every request until the
      // breaker opens (5 failures, 10 concurrent); allow a stall or two of a loaded machine.
      expect(slow).toBeLessThanOrEqual(2);
    } finally {
      redis.resume();
    }
  });
});
