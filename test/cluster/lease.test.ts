/**
 * REDIS_URL=redis-cluster://…: the fleet-wide single flight (a SET NX PX
 * lease, compare-and-delete release, 'filled' notices) holds on a real
 * three-master cluster: 2 x 50 concurrent cold requests split across two
 * replicas make one upstream request.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedisCluster();

describe('Redis Cluster: fleet single flight', () => {
  let cluster: RedisCluster;
  let upstream: FakeUpstream;
  let a: Replica;
  let b: Replica;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    const fixtures = serveFixtures();
    [cluster, upstream] = await Promise.all([
      startRedisCluster(),
      startFakeUpstream(async (req, res) => {
        if ((req.url ?? '').startsWith('/token/list')) await held;
        return fixtures(req, res);
      }),
    ]);
    const patch = { redisUrl: cluster.url, upstream: { hedgeAfterMs: 0, maxAttempts: 1 }, redis: { leaseMs: 5000, commandTimeoutMs: 500 } };
    [a, b] = await Promise.all([startReplica([upstream.url], patch), startReplica([upstream.url], patch)]);
  });
  afterAll(async () => {
    release();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([upstream?.close(), cluster?.stop()]);
  });

  it('one upstream request for 2 x 50 concurrent cold requests', async () => {
    const all = Promise.all(Array.from({ length: 100 }, (_, i) => get(i % 2 === 0 ? a.url : b.url, '/token/list')));
    await waitFor(() => upstream.count('/token/list') === 1, 5000, 'the leader reaching the upstream');
    await waitFor(() => a.resolver.inFlight === 1 && b.resolver.inFlight === 1, 5000, 'both replicas waiting on the key');
    release();
    const answers = await all;
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(upstream.count('/token/list')).toBe(1);
    expect(await get(b.url, '/token/list')).toMatchObject({ cache: 'HIT' });
    expect(upstream.count('/token/list')).toBe(1);
  });
});
