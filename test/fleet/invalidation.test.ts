/**
 * Fleet-wide head invalidation. Replica A probes a simulator that
 * advances; replica B never probes again (long probe interval), so it can only
 * learn the new head over the Redis bus. Its head-dependent entry must then
 * stop being a HIT: next request MISS, X-Chain-Head advanced, new content.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { dataOf, get, startReplica, unstamped, type Got, type Replica } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedis();
const LIST = '/tx/list?page=1&page_size=20';

describe('head invalidation across replicas', () => {
  let redis: RedisServer;
  let simA: SimulatorHandle;
  let simB: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [redis, simA, simB] = await Promise.all([
      startRedisServer(),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
    ]);
    // Long TTLs: only head invalidation can make B refetch.
    const policies = { 'tx/list': { ttlMs: 600_000, swrMs: 600_000 } };
    [a, b] = await Promise.all([
      startReplica([simA.url], { redisUrl: redis.url, policies, upstream: { probeIntervalMs: 50 } }),
      startReplica([simB.url], { redisUrl: redis.url, policies, upstream: { probeIntervalMs: 600_000 } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([simA?.close(), simB?.close(), redis?.stop()]);
  });

  it('a head seen by A only makes B drop its head-dependent entry', async () => {
    const head0 = simA.chain.head();
    const first = await get(b.url, LIST);
    expect(first).toMatchObject({ status: 200, cache: 'MISS', head: head0 });
    expect(await get(b.url, LIST)).toMatchObject({ cache: 'HIT', head: head0 });
    const bProbesBefore = simB.stats()['block/max'] ?? 0;

    // Both backends produce the block (the data exists), but only A will probe and see it.
    simA.chain.advance(1);
    simB.chain.advance(1);

    await untilHead(a.tracker, (h) => h === head0 + 1, 'A probing the new head', 5000);
    let next: Got | undefined;
    await waitFor(
      async () => {
        next = await get(b.url, LIST);
        return next.cache !== 'HIT';
      },
      5000,
      'B to stop serving its head-dependent entry as a HIT',
    );
    expect(next).toMatchObject({ status: 200, cache: 'MISS', head: head0 + 1 });
    expect(unstamped(next!.text)).not.toBe(unstamped(first.text));
    expect(dataOf(next!.text)['list']).toEqual(
      expect.arrayContaining([expect.objectContaining({ block_height: head0 + 1 })]),
    );
    expect(b.tracker.bestHead()).toBe(head0 + 1);
    // B learned it from the bus, not from a probe of its own.
    expect(simB.stats()['block/max'] ?? 0).toBe(bProbesBefore);
  });
});
