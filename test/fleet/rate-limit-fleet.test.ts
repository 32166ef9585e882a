/**
 * Issue 5: the per-IP rate limit is one budget for the fleet (Redis store):
 * 5 requests across two replicas pass, the 6th gets the 429 envelope with
 * Retry-After on whichever replica it lands. With Redis down the limiter
 * fails open, fast.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

describe('rate limit shared by two replicas', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = { redisUrl: redis.url, rateLimit: { enabled: true, max: 5, windowMs: 60_000 }, redis: { commandTimeoutMs: 100 } };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('counts requests on both replicas against one budget, then fails open without Redis', async () => {
    const order = [a, b, a, b, a];
    for (const [i, r] of order.entries()) {
      const res = await get(r.url, '/token/list');
      expect(res.status, `request ${i + 1}`).toBe(200);
    }
    const sixth = await get(b.url, '/token/list');
    expect(sixth.status).toBe(429);
    const body = JSON.parse(sixth.text) as { code: unknown; msg: unknown; data: unknown };
    expect(body).toMatchObject({ data: null });
    expect(typeof body.code).toBe('number');
    expect(body.code).not.toBe(0);
    expect(typeof body.msg).toBe('string');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(sixth.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(sixth.headers['content-type']).toMatch(/application\/json/);
    expect(await get(a.url, '/token/list')).toMatchObject({ status: 429 });
    // Ops endpoints are never limited.
    expect(await get(a.url, '/healthz')).toMatchObject({ status: 200 });

    await redis.kill();
    for (let i = 0; i < 6; i++) {
      const r = await get(i % 2 === 0 ? a.url : b.url, '/token/list');
      expect(r.status, `request ${i + 1} with Redis down`).toBe(200);
      expect(r.ms).toBeLessThan(1000);
    }

    // Redis back: the shared budget applies again (a fresh window: the counters died with Redis).
    // (Also needed for shutdown: FleetBus.close() hangs while Redis is down, see redis-down.test.ts.)
    await redis.restart();
    await waitFor(() => a.fleet!.client.status === 'ready' && b.fleet!.client.status === 'ready', 10_000, 'both replicas reconnected');
    for (const [i, r] of order.entries()) expect((await get(r.url, '/token/list')).status, `request ${i + 1} after the restart`).toBe(200);
    expect(await get(b.url, '/token/list')).toMatchObject({ status: 429 });
  });
});
