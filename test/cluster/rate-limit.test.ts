/**
 * REDIS_URL=redis-cluster://…: the per-IP rate limit is one budget across two
 * replicas on a real three-master cluster. (Kept in its own `it`: the limiter
 * is being reworked; this asserts only the fleet-wide budget.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedisCluster();

describe('Redis Cluster: rate limit', () => {
  let cluster: RedisCluster;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [cluster, sim] = await Promise.all([startRedisCluster(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = { redisUrl: cluster.url, rateLimit: { enabled: true, max: 5, windowMs: 60_000 }, redis: { commandTimeoutMs: 500 } };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), cluster?.stop()]);
  });

  it('counts requests on both replicas against one budget', async () => {
    for (const [i, r] of [a, b, a, b, a].entries()) expect((await get(r.url, '/token/list')).status, `request ${i + 1}`).toBe(200);
    const sixth = await get(b.url, '/token/list');
    expect(sixth.status).toBe(429);
    expect(JSON.parse(sixth.text)).toMatchObject({ code: 4290, data: null });
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
