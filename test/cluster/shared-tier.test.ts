/**
 * REDIS_URL=redis-cluster://… against a real three-master cluster: two
 * replicas share the second tier (a key fetched via A is a HIT on B, with no
 * upstream request), whichever master holds its slot.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedisCluster();

describe('Redis Cluster: shared tier', () => {
  let cluster: RedisCluster;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [cluster, sim] = await Promise.all([startRedisCluster(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    [a, b] = await Promise.all([
      startReplica([sim.url], { redisUrl: cluster.url }),
      startReplica([sim.url], { redisUrl: cluster.url }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), cluster?.stop()]);
  });

  it('keys on every master: fetched via A, a HIT on B without an upstream request', async () => {
    // Enough distinct keys to land on all three masters' slots.
    const paths = Array.from({ length: 12 }, (_, i) => `/block/detail?h=${4_840_000 + i}`);
    const before = sim.stats()['block/detail'] ?? 0;
    for (const p of paths) expect(await get(a.url, p), p).toMatchObject({ status: 200, cache: 'MISS' });
    expect(sim.stats()['block/detail'] ?? 0).toBe(before + paths.length);
    for (const p of paths) expect(await get(b.url, p), p).toMatchObject({ status: 200, cache: 'HIT' });
    expect(sim.stats()['block/detail'] ?? 0).toBe(before + paths.length);
  });
});
