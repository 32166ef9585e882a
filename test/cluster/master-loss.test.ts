/**
 * REDIS_URL=redis-cluster://…: a real three-master cluster losing a master
 * (no replicas: its slots are gone, then the cluster reports itself down) is
 * survived like a Redis outage: every client request is answered, fast, from
 * memory and the upstream, on both replicas, with the rate limiter on; the
 * tier fails fast rather than retrying CLUSTERDOWN until each command times out.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedisCluster();

describe('Redis Cluster: losing a master', () => {
  let cluster: RedisCluster;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    [cluster, sim] = await Promise.all([startRedisCluster(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = {
      redisUrl: cluster.url,
      rateLimit: { enabled: true, max: 1_000_000, windowMs: 60_000 },
      redis: { commandTimeoutMs: 300 },
    };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), cluster?.stop()]);
  });

  it('no client errors and no stalls while a master is gone', async () => {
    const path = (i: number) => `/block/detail?h=${4_830_000 + i}`;
    for (let i = 0; i < 6; i++) expect((await get(a.url, path(i))).status).toBe(200);
    await cluster.killMaster(1);
    // Through the node timeout (1 s) and after: slots unreachable, then CLUSTERDOWN everywhere.
    const until = Date.now() + 3000;
    let i = 0;
    const times: number[] = [];
    while (Date.now() < until) {
      const r = await get(i % 2 === 0 ? a.url : b.url, path(i % 40));
      expect(r.status, `request ${i} (${path(i % 40)})`).toBe(200);
      times.push(r.ms);
      i += 1;
    }
    times.sort((x, y) => x - y);
    expect(times.length).toBeGreaterThan(5);
    // Never stalled (as with a single Redis going away: under 1 s each, slack for a loaded machine),
    // and failing fast: a CLUSTERDOWN answer is not retried until the command times out (300 ms).
    expect(times[times.length - 1]).toBeLessThan(1000);
    expect(times[Math.floor(times.length * 0.9)]).toBeLessThan(300);
    expect((await get(a.url, '/healthz')).status).toBe(200);
  });
});
