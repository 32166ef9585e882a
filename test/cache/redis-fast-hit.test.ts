/**
 * Redis-tier hits on the pre-router path: a URL answered with a hit before is
 * read from Redis without routing when memory does not hold its entry; when
 * Redis holds nothing fresh for it, the request is routed as usual (and
 * answered once).
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildProxy } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { testConfig } from '../helpers/proxy.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

describe('Redis hits before the router', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Awaited<ReturnType<typeof buildProxy>>;
  let base: string;
  let routed = 0;
  const upstream = (): number => sim.stats()['block/detail'] ?? 0;

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    a = await startReplica([sim.url], { redisUrl: redis.url });
    b = await buildProxy(testConfig([sim.url], { redisUrl: redis.url }), { logger: pino({ level: 'silent' }) });
    b.app.addHook('onRequest', (_req, _reply, done) => {
      routed++;
      done();
    });
    base = await b.app.listen({ port: 0, host: '127.0.0.1' });
    await b.pool.firstProbe;
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('answers a remembered URL from Redis without routing it while memory does not hold it', async () => {
    const path = '/block/detail?h=4840100';
    expect((await get(a.url, path)).cache).toBe('MISS'); // A fetches and writes Redis
    const before = upstream();
    const first = await get(base, path); // routed: a Redis hit, not admitted (a first read)
    expect(first.cache).toBe('HIT');
    expect(b.memory.peek(path.slice(1))).toBeUndefined();
    const r0 = routed;
    const second = await get(base, path); // remembered: read from Redis before the router
    expect(second.cache).toBe('HIT');
    // The same entry (time-relative fields aside: re-stamped at each answer).
    const block = (t: string): unknown => (JSON.parse(t) as { data: { hash: unknown } }).data.hash;
    expect(block(second.text)).toBe(block(first.text));
    expect(second.headers['etag']).toBe(first.headers['etag']);
    expect(routed).toBe(r0);
    expect(upstream()).toBe(before);
    // Admitted on that second read: now a memory hit, still not routed.
    expect(b.memory.peek(path.slice(1))).toBeDefined();
    expect((await get(base, path)).cache).toBe('HIT');
    expect(routed).toBe(r0);
  });

  it('routes a remembered URL that Redis no longer holds, and answers it once', async () => {
    const path = '/block/detail?h=4840200';
    expect((await get(a.url, path)).cache).toBe('MISS');
    expect((await get(base, path)).cache).toBe('HIT'); // remembered, not admitted
    const client = new Redis(redis.url);
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
    const before = upstream();
    const r0 = routed;
    const again = await get(base, path);
    expect(again.status).toBe(200);
    expect(again.cache).toBe('MISS');
    expect(routed).toBe(r0 + 1);
    expect(upstream()).toBe(before + 1);
  });

  it('charges the rate limit on the pre-router Redis read: a client over its limit is refused there', async () => {
    let routedHere = 0;
    const c = await buildProxy(
      testConfig([sim.url], { redisUrl: redis.url, rateLimit: { enabled: true, max: 1, windowMs: 60_000 } }),
      { logger: pino({ level: 'silent' }) },
    );
    c.app.addHook('onRequest', (_req, _reply, done) => {
      routedHere++;
      done();
    });
    try {
      const url = await c.app.listen({ port: 0, host: '127.0.0.1' });
      await c.pool.firstProbe;
      const path = '/block/detail?h=4840300';
      expect((await get(a.url, path)).cache).toBe('MISS');
      expect((await get(url, path)).cache).toBe('HIT'); // routed, charged: the limit is spent
      expect(c.memory.peek(path.slice(1))).toBeUndefined();
      const r0 = routedHere;
      const refused = await get(url, path); // remembered: read from Redis before the router, then refused
      expect(refused.status).toBe(429);
      expect(routedHere).toBe(r0);
    } finally {
      await c.close();
    }
  });
});
