/**
 * REDIS_URL=redis-cluster://…: the per-IP rate limit is one budget across two
 * replicas on a real three-master cluster. Reconciliation rounds (every 100 ms
 * in service) are run by hand, so the assertion is exact up to the documented
 * bound: a replica learns of the other's admissions at its next round.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedisCluster, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { get } from '../helpers/replica.js';
import { startLimitedReplica, type LimitedReplica } from '../ratelimit/kit.js';

const describe = describeRedisCluster();

describe('Redis Cluster: rate limit', () => {
  let cluster: RedisCluster;
  let sim: SimulatorHandle;
  let a: LimitedReplica;
  let b: LimitedReplica;
  const sync = async () => {
    await a.limiter!.sync();
    await b.limiter!.sync();
    await a.limiter!.sync();
  };

  beforeAll(async () => {
    [cluster, sim] = await Promise.all([startRedisCluster(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = { redisUrl: cluster.url, rateLimit: { max: 5, windowMs: 60_000 }, redis: { commandTimeoutMs: 500 } };
    [a, b] = await Promise.all([startLimitedReplica([sim.url], patch), startLimitedReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), cluster?.stop()]);
  });

  it('counts requests on both replicas against one budget', async () => {
    for (const [i, r] of [a, b, a, b, a].entries()) {
      expect((await get(r.url, '/token/list')).status, `request ${i + 1}`).toBe(200);
      await sync();
    }
    // Budget 5 spent across the fleet. Alone, each replica would admit 5 (10 in all);
    // reconciled, at most one more request is admitted (a replica learns of the
    // other's admissions with its next one: the documented bound).
    let extra = 0;
    for (const r of [b, a, b, a, b, a]) {
      const res = await get(r.url, '/token/list');
      await sync();
      if (res.status === 200) {
        extra++;
        continue;
      }
      expect(res.status).toBe(429);
      expect(JSON.parse(res.text)).toMatchObject({ code: 4290, data: null });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(extra).toBeLessThanOrEqual(1);
  });
});
