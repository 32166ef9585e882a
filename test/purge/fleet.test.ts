/**
 * Purge across a fleet: two replicas on one real redis-server. A purge asked
 * of replica A reaches B over the bus (its memory and what it reads from
 * Redis), an exact key is deleted from Redis too, a soft purge is served
 * stale on B, and a replica started after the purge loads the marks. The
 * marks in Redis are bounded like the local ones.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Breaker } from '../../src/common/breaker.js';
import { noopMetrics } from '../../src/metrics/types.js';
import type { RedisClient } from '../../src/redis/client.js';
import type { RedisGuard } from '../../src/redis/guard.js';
import { FleetMarks } from '../../src/purge/fleet-marks.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { fakeClock } from '../helpers/clock.js';
import { within } from '../helpers/until.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter, dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { keyQuery, purged, purgeStatus } from './kit.js';

const describe = describeRedis();

/** A command guard of its own (breaker, deadline) around `client`. */
const guardOf = (client: RedisClient): RedisGuard => ({
  client,
  breaker: new Breaker({ failures: 5, cooldownMs: 1000 }),
  timeoutMs: 1000,
  metrics: noopMetrics,
});

describe('purge across two replicas sharing Redis', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  const clock = fakeClock(Date.now());
  const patch = () => ({ redisUrl: redis.url });
  const upstream = (endpoint: string): number => sim.stats()[endpoint] ?? 0;
  const cacheOf = async (r: Replica, path: string): Promise<string | undefined> => {
    clock.advance(1);
    return (await get(r.url, path)).cache;
  };
  /** Purges on `r`, then waits until `other` has applied it (its count of fleet purges grew). */
  const purgeAcross = async (r: Replica, other: Replica, query: string) => {
    const before = (await purgeStatus(other.url)).fleet;
    // Applied by the purger's own listener, which was there first.
    const heard = within(
      new Promise((resolve) => other.fleet!.bus.once('purge', resolve)),
      'the purge heard on the bus',
    );
    clock.advance(1);
    const d = await purged(r.url, query);
    clock.advance(1);
    await heard;
    expect((await purgeStatus(other.url)).fleet).toBe(before + 1);
    return d;
  };
  let address = '';

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    [a, b] = await Promise.all([
      startReplica([sim.url], patch(), clock.now),
      startReplica([sim.url], patch(), clock.now),
    ]);
    const list = dataOf((await get(sim.url, '/tx/list?block_height=4841000&page_size=1')).text)['list'] as Array<
      Record<string, string>
    >;
    address = list[0]!['address_from']!;
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('a tag purge on A: B no longer serves it, from its memory nor from Redis', async () => {
    const paths = [`/address/info?address=${address}`, `/tx/listByAddress?address=${address}`];
    for (const p of paths) {
      expect(await cacheOf(a, p)).toBe('MISS');
      expect(await cacheOf(b, p)).toBe('HIT');
      expect(await cacheOf(b, p)).toBe('HIT');
    }
    const before = upstream('address/info');
    const d = await purgeAcross(a, b, `tag=address:${address}`);
    expect(d).toMatchObject({ kind: 'tag', memory: 2, redis: 0, purged: 2, fleet: { stored: true, published: true } });
    expect(await purgeStatus(b.url)).toMatchObject({
      last: { target: `address:${address}`, origin: 'fleet', entries: 2 },
    });
    expect(await counter(b.url, 'chainproxy_purges_total', { kind: 'tag', origin: 'fleet' })).toBe(1);
    // B's memory dropped it, and the Redis entry is judged by the mark: B fetches it.
    expect(await cacheOf(b, paths[0]!)).toBe('MISS');
    expect(upstream('address/info')).toBe(before + 1);
    // A dropped its own too; the Redis entry it left is not served either.
    expect(await cacheOf(a, paths[1]!)).toBe('MISS');
  });

  it('an exact key: dropped on both replicas and deleted from Redis, counted', async () => {
    const path = '/block/detail?h=4840000';
    await cacheOf(a, path);
    expect(await cacheOf(b, path)).toBe('HIT');
    const redisKey = a.fleet!.store.redisKey('block/detail?h=4840000');
    expect(await a.fleet!.client.exists(redisKey)).toBe(1);
    const d = await purgeAcross(a, b, keyQuery(path));
    expect(d).toMatchObject({ kind: 'key', memory: 1, redis: 1, purged: 2 });
    expect(await a.fleet!.client.exists(redisKey)).toBe(0);
    expect(await cacheOf(b, path)).toBe('MISS');
  });

  it('soft on A: B serves it stale while it fetches it again', async () => {
    const path = '/block/detail?h=4840001';
    await cacheOf(a, path);
    expect(await cacheOf(b, path)).toBe('HIT');
    const before = upstream('block/detail');
    await purgeAcross(a, b, `${keyQuery(path)}&soft=true`);
    expect(await cacheOf(b, path)).toBe('STALE');
    await waitFor(() => upstream('block/detail') === before + 1, 5000, 'the background refetch');
    await waitFor(async () => (await get(b.url, path)).headers['age'] === '0', 5000, 'the refetched entry served');
    expect(upstream('block/detail')).toBe(before + 1);
  });

  it('what B reads from Redis: hard, never served even when the refetch fails; soft, served stale', async () => {
    const hard = '/block/detail?h=4840002';
    const soft = '/block/detail?h=4840003';
    // Cached through A only: B finds them in Redis.
    await cacheOf(a, hard);
    await cacheOf(a, soft);
    // By tag: the Redis entries stay (an exact hard key would be deleted there), judged by the marks.
    await purgeAcross(a, b, 'tag=height:4840002');
    await purgeAcross(a, b, `${keyQuery(soft)}&soft=true`);
    sim.setFaults({ errorRate: 1 });
    try {
      const g = await get(b.url, hard);
      expect(g.status).toBe(502);
      const s = await get(b.url, soft);
      expect(s.status).toBe(200);
      expect(s.cache).toBe('STALE');
    } finally {
      sim.setFaults({});
    }
  });

  it(
    'a replica started after the purge loads the marks: ' + 'what Redis still holds from before is not served',
    async () => {
      const purgedPath = '/token/detail?token=NAX';
      const keptPath = '/token/detail?token=ATP';
      await cacheOf(a, purgedPath);
      await cacheOf(a, keptPath);
      await purgeAcross(a, b, 'tag=token:NAX');
      const c = await startReplica([sim.url], patch(), clock.now);
      try {
        await waitFor(async () => (await purgeStatus(c.url)).marks > 0, 5000, 'the marks loaded');
        const before = upstream('token/detail');
        expect(await cacheOf(c, keptPath)).toBe('HIT');
        expect(await cacheOf(c, purgedPath)).toBe('MISS');
        expect(upstream('token/detail')).toBe(before + 1);
      } finally {
        await c.close();
      }
    },
  );

  it('loading the marks waits for the command connection, which may be ready after the bus', async () => {
    const shared = new FleetMarks({
      guard: guardOf(a.fleet!.client),
      keyPrefix: 'late:',
      horizonMs: 60_000,
      cap: 10,
      clock: () => 1_000,
    });
    await shared.store({ target: 'token:ATP', soft: true, at: 1_000 });
    const late = new Redis(redis.url, { lazyConnect: true });
    try {
      const loading = new FleetMarks({
        guard: guardOf(late),
        keyPrefix: 'late:',
        horizonMs: 60_000,
        cap: 10,
        clock: () => 1_000,
      }).load();
      await late.connect();
      // Taken as made as long ago, by Redis's clock, as it was: by this loader's clock, just before its now.
      const [mark] = (await loading)!;
      expect(mark).toMatchObject({ target: 'token:ATP', soft: true });
      expect(mark!.at).toBeLessThanOrEqual(1_000);
      expect(mark!.at).toBeGreaterThan(1_000 - 5_000);
    } finally {
      late.disconnect();
    }
  });

  it(
    'the marks in Redis are bounded: ' + 'past the cap the oldest fold into everything before, and the key expires',
    async () => {
      const horizonMs = 2_000;
      const now = 1_000_000;
      const client = a.fleet!.client;
      const marks = new FleetMarks({
        guard: guardOf(client),
        keyPrefix: 'bounds:',
        horizonMs,
        cap: 10,
        clock: () => now,
      });
      for (let i = 0; i < 50; i++)
        expect(await marks.store({ target: `height:${i}`, soft: i % 2 === 1, at: now + i })).toBe(true);
      expect(await client.zcard('bounds:purge')).toBeLessThanOrEqual(12);
      // Scores on Redis's clock, each mark's age by the purger's kept: the folds are the newest of those popped.
      const scores = new Map(
        (await client.zrange('bounds:purge', 0, -1, 'WITHSCORES')).flatMap((v, i, all) =>
          i % 2 === 0 ? [[v, Number(all[i + 1])] as const] : [],
        ),
      );
      // Hard folds up to height:38, soft up to height:39 (the scores grow with each purge's time).
      expect(scores.get('h*')).toBeLessThan(scores.get('s*')!);
      expect(scores.get('s*')).toBeLessThan(scores.get('hheight:40')!);
      const loaded = (await marks.load())!;
      expect(loaded.filter((m) => m.target !== '*').map((m) => m.target)).toEqual(
        Array.from({ length: 10 }, (_, i) => `height:${40 + i}`),
      );
      // None later than the loader's now.
      for (const m of loaded) expect(m.at).toBeLessThanOrEqual(now);
      expect(await client.pttl('bounds:purge')).toBeLessThanOrEqual(horizonMs);
      // Past the horizon (Redis's clock): only the new mark is left.
      await waitFor(
        async () => {
          await marks.store({ target: 'token:NAX', soft: false, at: now });
          return (await marks.load())!.length === 1;
        },
        horizonMs + 3000,
        'the old marks past the horizon',
      );
      expect((await marks.load())!.map((m) => m.target)).toEqual(['token:NAX']);
    },
  );
});
