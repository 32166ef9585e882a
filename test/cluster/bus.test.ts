/**
 * REDIS_URL=redis-cluster://…: the fleet bus (pub/sub) works on a real
 * three-master cluster: a head seen by replica A only (B never probes again)
 * makes B drop its head-dependent entry.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Got, type Replica } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedisCluster();
const LIST = '/tx/list?page=1&page_size=20';

describe('Redis Cluster: head invalidation over the bus', () => {
  let cluster: RedisCluster;
  let simA: SimulatorHandle;
  let simB: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [cluster, simA, simB] = await Promise.all([
      startRedisCluster(),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
    ]);
    const policies = { 'tx/list': { ttlMs: 600_000, swrMs: 600_000 } };
    [a, b] = await Promise.all([
      startReplica([simA.url], { redisUrl: cluster.url, policies, upstream: { probeIntervalMs: 50 } }),
      startReplica([simB.url], { redisUrl: cluster.url, policies, upstream: { probeIntervalMs: 600_000 } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([simA?.close(), simB?.close(), cluster?.stop()]);
  });

  it('a head seen by A only reaches B', async () => {
    const head0 = simA.chain.head();
    expect(await get(b.url, LIST)).toMatchObject({ status: 200, cache: 'MISS', head: head0 });
    expect(await get(b.url, LIST)).toMatchObject({ cache: 'HIT' });
    const bProbes = simB.stats()['block/max'] ?? 0;
    simA.chain.advance(1);
    simB.chain.advance(1);
    await untilHead(b.tracker, (h) => h === head0 + 1, 'B learning the head over the bus', 10_000);
    let next: Got | undefined;
    await waitFor(
      async () => {
        next = await get(b.url, LIST);
        return next.cache !== 'HIT';
      },
      5000,
      'B dropping its head-dependent entry',
    );
    expect(next).toMatchObject({ status: 200, head: head0 + 1 });
    expect(simB.stats()['block/max'] ?? 0).toBe(bProbes);
  });
});
