/**
 * The per-client budget is one budget for the fleet: requests spread over two
 * replicas sharing a Redis are counted together once the replicas have
 * reconciled (a round is run by hand here instead of waiting for the 100 ms
 * interval), and the 429 envelope with Retry-After comes from whichever
 * replica the next request lands on. With Redis down, answers are not delayed
 * and each replica keeps limiting on its own (fail open to local budgets).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get } from '../helpers/replica.js';
import { startLimitedReplica, type LimitedReplica } from '../ratelimit/kit.js';

const describe = describeRedis();

describe('rate limit shared by two replicas', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: LimitedReplica;
  let b: LimitedReplica;

  const sync = async () => {
    await a.limiter!.sync();
    await b.limiter!.sync();
    await a.limiter!.sync();
  };
  const as = (ip: string) => ({ 'x-forwarded-for': ip });

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = {
      redisUrl: redis.url,
      trustProxy: ['127.0.0.1'],
      rateLimit: { max: 6, windowMs: 60_000 },
      redis: { commandTimeoutMs: 100 },
    };
    [a, b] = await Promise.all([startLimitedReplica([sim.url], patch), startLimitedReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it(
    'counts requests on both replicas against one budget, ' + 'then fails open to local budgets without Redis',
    async () => {
      const order = [a, b, a, b, a, b];
      for (const [i, r] of order.entries()) {
        expect((await get(r.url, '/token/list', as('203.0.113.1'))).status, `request ${i + 1}`).toBe(200);
        if (i % 2 === 1) await sync();
      }
      await sync();
      // A replica that admitted nothing since the other's last round learns of it with its
      // next admission: at most one more request per replica here (the documented bound).
      let extra = 0;
      for (const r of [a, b, a, b]) {
        const res = await get(r.url, '/token/list', as('203.0.113.1'));
        await sync();
        if (res.status === 200) {
          extra++;
          continue;
        }
        expect(res.status).toBe(429);
        expect(JSON.parse(res.text)).toEqual({ code: 4290, msg: 'rate limit exceeded', data: null });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(res.headers['content-type']).toMatch(/application\/json/);
      }
      expect(extra).toBeLessThanOrEqual(1);
      for (const r of [a, b]) expect((await get(r.url, '/token/list', as('203.0.113.1'))).status).toBe(429);
      // Another client has its own budget; ops endpoints are never limited.
      expect((await get(b.url, '/token/list', as('203.0.113.2'))).status).toBe(200);
      expect(await get(a.url, '/healthz', as('203.0.113.1'))).toMatchObject({ status: 200 });

      await redis.kill();
      const codes: number[] = [];
      for (let i = 0; i < 14; i++) {
        const r = await get(i % 2 === 0 ? a.url : b.url, '/token/list', as('203.0.113.3'));
        codes.push(r.status);
        expect(r.ms, `request ${i + 1} with Redis down`).toBeLessThan(1000);
        if (i % 2 === 1) await sync(); // rounds fail fast; nothing waits for them
      }
      // Each replica alone: 6 each, then 429.
      expect(codes.filter((c) => c === 200)).toHaveLength(12);
      expect(codes.slice(12)).toEqual([429, 429]);

      // Redis back: the fleet-wide count applies again (the counters died with Redis).
      await redis.restart();
      await waitFor(
        () => a.fleet!.client.status === 'ready' && b.fleet!.client.status === 'ready',
        10_000,
        'both replicas reconnected',
      );
      // The limiter's breaker lets a trial round through after its cooldown (what a
      // failed round had admitted is not replayed: those counts are lost).
      let probe = 0;
      await waitFor(
        async () => {
          // A round needs something to send: an admitted request, so a fresh client each
          // time (one client's budget would run out before the breaker's cooldown ends).
          probe++;
          for (const r of [a, b]) await get(r.url, '/block/max', as(`198.51.100.${probe % 250}`));
          await sync();
          return a.limiter!.fleetOk() === true && b.limiter!.fleetOk() === true;
        },
        10_000,
        'reconciliation through Redis again',
      );
      let admitted = 0;
      for (let i = 0; i < 10; i++) {
        if ((await get(order[i % 6]!.url, '/token/list', as('203.0.113.4'))).status === 200) admitted++;
        if (i % 2 === 1) await sync();
      }
      expect(admitted).toBeGreaterThanOrEqual(6);
      expect(admitted).toBeLessThanOrEqual(7);
      await sync();
      for (const r of [a, b]) expect((await get(r.url, '/token/list', as('203.0.113.4'))).status).toBe(429);
    },
  );
});
