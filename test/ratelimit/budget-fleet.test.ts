/**
 * The miss budget of a fleet on a real Redis: misses led on two replicas are
 * counted against one budget once the replicas have reconciled (a round is
 * run by hand instead of waiting for the 100 ms interval); a hit from the
 * shared Redis tier costs nothing; and a request that leads on its replica
 * but is filled by another replica's fetch (the fleet lease) is given its
 * charge back: only upstream requests are paid for.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter } from '../helpers/replica.js';
import { startLimitedReplica, type LimitedReplica } from './kit.js';
import { client, codeOf, cold, get } from './budget-kit.js';

const describe = describeRedis();

describe('miss budget shared by two replicas', () => {
  let redis: RedisServer;
  let up: FakeUpstream;
  let a: LimitedReplica;
  let b: LimitedReplica;
  const held = heldFixtures(cold(77));

  const sync = async () => {
    await a.limiter!.sync();
    await b.limiter!.sync();
    await a.limiter!.sync();
  };

  beforeAll(async () => {
    [redis, up] = await Promise.all([startRedisServer(), startFakeUpstream(held.handler)]);
    const patch = {
      redisUrl: redis.url,
      trustProxy: ['127.0.0.1'],
      missBudget: 4,
      rateLimit: { max: 1000, windowMs: 60_000 },
      upstream: { hedgeAfterMs: 0, maxAttempts: 1 },
      redis: { leaseMs: 5000 },
    };
    [a, b] = await Promise.all([startLimitedReplica([up.url], patch), startLimitedReplica([up.url], patch)]);
  });
  afterAll(async () => {
    held.release();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([up?.close(), redis?.stop()]);
  });

  it('counts misses on both replicas against one budget; Redis-tier hits are free', async () => {
    const x = client('203.0.113.1');
    for (let n = 1; n <= 4; n++) {
      expect(await get(n % 2 === 1 ? a.url : b.url, cold(n), x), `miss ${n}`).toMatchObject({
        status: 200,
        cache: 'MISS',
      });
      if (n % 2 === 0) await sync();
    }
    // A replica learns what the other spent at its own next round with something to send:
    // at most one miss more per replica here (the limiter's documented bound).
    let extra = 0;
    for (const r of [a, b, a, b]) {
      const g = await get(r.url, cold(5 + extra), x);
      await sync();
      if (g.status === 200) {
        extra++;
        continue;
      }
      expect([g.status, codeOf(g)]).toEqual([429, 4292]);
      expect(Number(g.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(extra).toBeLessThanOrEqual(1);
    for (const r of [a, b]) expect((await get(r.url, cold(9), x)).status).toBe(429);
    expect(up.count('/holders')).toBe(4 + extra);
    // What the other replica fetched comes from the shared tier: a hit, not a miss.
    expect(await get(b.url, cold(1), x)).toMatchObject({ status: 200, cache: 'HIT' });
    expect(await get(a.url, cold(2), x)).toMatchObject({ status: 200, cache: 'HIT' });
    expect(up.count('/holders')).toBe(4 + extra);
    // Another client's budget is its own.
    expect(await get(b.url, cold(8), client('203.0.113.2'))).toMatchObject({ status: 200, cache: 'MISS' });
    const refused =
      (await counter(a.url, 'chainproxy_miss_budget_refused_total')) +
      (await counter(b.url, 'chainproxy_miss_budget_refused_total'));
    expect(refused).toBe(4 - extra + 2);
  });

  it('gives the charge back when another replica did the fetch', async () => {
    const y = client('203.0.113.3');
    for (let n = 10; n <= 12; n++) expect(await get(b.url, cold(n), y)).toMatchObject({ status: 200, cache: 'MISS' });
    await sync();
    const before = up.count('/holders');
    // Another client leads key 77 on replica a (held upstream); y asks b for it: b leads
    // locally (charging y its last miss) and waits on a's fleet lease.
    const leader = get(a.url, cold(77), client('203.0.113.4'));
    await up.arrived(before + 1, '/holders', 'a reaching the upstream');
    const follower = get(b.url, cold(77), y);
    await waitFor(() => b.resolver.inFlight === 1, 5000, 'b waiting on the lease');
    held.release();
    expect((await leader).status).toBe(200);
    expect((await follower).status).toBe(200);
    expect(up.count('/holders')).toBe(before + 1);
    // The charge came back: one more miss for y, then the budget is spent.
    expect(await get(b.url, cold(13), y)).toMatchObject({ status: 200, cache: 'MISS' });
    expect((await get(b.url, cold(14), y)).status).toBe(429);
  });
});
