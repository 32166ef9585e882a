/**
 * A purge that could not reach the fleet says so: with REDIS_URL set and the
 * real redis-server stopped, POST /purge is applied on this replica and
 * answered with the 503 envelope 5034, its message saying what failed, its
 * data what was done here. With Redis back, the same purge answers 200.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { purge, type PurgeData } from './kit.js';

const describe = describeRedis();

describe('a purge while Redis is down', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let r: Replica;
  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    r = await startReplica([sim.url], { redisUrl: redis.url });
  });
  afterAll(async () => {
    await r?.close();
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('with Redis up: 200, reached the fleet', async () => {
    await waitFor(async () => (await purge(r.url, 'all=true')).status === 200, 10_000, 'Redis taking purges');
    const ok = await purge(r.url, 'key=/block/max');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ code: 0, data: { reach: 'fleet', fleet: { stored: true, published: true } } });
  });

  it('with Redis stopped: the 503 envelope 5034 says what failed and what was done here', async () => {
    const path = '/block/detail?h=10';
    await get(r.url, path);
    expect((await get(r.url, path)).cache).toBe('HIT');
    await redis.stop();
    const res = await purge(r.url, `key=${encodeURIComponent(path)}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.code).toBe(5034);
    expect(res.body.msg).toMatch(/^purge applied on this replica, not across the fleet: Redis took neither/);
    const data = res.body.data as PurgeData;
    expect(data).toMatchObject({
      kind: 'key',
      target: 'block/detail?h=10',
      memory: 1,
      reach: 'fleet',
      fleet: { stored: false, published: false },
    });
    // Done here all the same.
    expect((await get(r.url, path)).cache).toBe('MISS');
  });

  it('with Redis back: 200 again', async () => {
    await redis.restart();
    await waitFor(async () => (await purge(r.url, 'all=true')).status === 200, 20_000, 'purges reaching Redis again');
  });
});
