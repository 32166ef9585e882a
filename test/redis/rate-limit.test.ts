/**
 * Fleet reconciliation of the rate limiter against a real redis-server: two
 * limiters (two replicas) on one Redis, fake clock, rounds driven by hand.
 * Each learns what the other admitted (with its own next admission, the
 * round then carries its increment); the fleet-wide total stays within the
 * documented bound (max + (N - 1) × what a replica admits per interval); with
 * Redis blackholed or dead a round ends within the command deadline and the
 * buckets keep counting locally (fail open to per-replica limits).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Breaker } from '../../src/common/breaker.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { RateLimiter } from '../../src/ratelimit/limiter.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { fakeClock } from '../helpers/clock.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { redisTestConfig } from './fixtures.js';

const describe = describeRedis();

describe('rate limiter fleet reconciliation', () => {
  let server: RedisServer;
  const cfg = redisTestConfig({ commandTimeoutMs: 100 });
  const clients: RedisClient[] = [];
  const limiters: RateLimiter[] = [];
  let prefixN = 0;

  async function fleet(n: number, max: number) {
    const clock = fakeClock();
    const keyPrefix = `t${++prefixN}:`;
    const out: RateLimiter[] = [];
    for (let i = 0; i < n; i++) {
      const client = createRedis(server.url, cfg);
      clients.push(client);
      await waitReady(client, 5000);
      const limiter = new RateLimiter({
        config: { enabled: true, max, windowMs: 60_000 },
        allow: [],
        apiKeys: [],
        clock: clock.now,
        redis: {
          guard: {
            client,
            breaker: new Breaker({ failures: 3, cooldownMs: 60_000 }),
            timeoutMs: cfg.commandTimeoutMs,
            metrics: noopMetrics,
          },
          keyPrefix,
        },
      });
      limiters.push(limiter);
      out.push(limiter);
    }
    return { limiters: out, clock };
  }

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const l of limiters) await l.close();
    for (const c of clients) await closeRedis(c);
    await server.stop();
  });

  it('each replica learns what the other admitted and stops at the shared budget', async () => {
    const {
      limiters: [a, b],
    } = await fleet(2, 10);
    let admitted = 0;
    for (let i = 0; i < 6; i++) admitted += a!.take('10.0.0.1') === 0 ? 1 : 0;
    await a!.sync();
    expect(b!.take('10.0.0.1')).toBe(0);
    admitted++;
    await b!.sync(); // b learns a's 6 with its own increment
    for (let i = 0; i < 10; i++) admitted += b!.take('10.0.0.1') === 0 ? 1 : 0;
    expect(admitted).toBe(10);
    await b!.sync();
    // a has not admitted since: it learns b's 4 with its next admission (the bound's A = 1 here).
    expect(a!.take('10.0.0.1')).toBe(0);
    await a!.sync();
    expect(a!.take('10.0.0.1')).toBeGreaterThan(0);
    expect(b!.take('10.0.0.1')).toBeGreaterThan(0);
    // Other clients are untouched.
    expect(a!.take('10.0.0.2')).toBe(0);
  });

  it('keeps the fleet-wide total within max + (N - 1) × admissions per interval', async () => {
    const max = 60;
    for (const perInterval of [1, 4, 15]) {
      const { limiters: fl } = await fleet(3, max);
      let total = 0;
      for (let round = 0; round < 100; round++) {
        let got = 0;
        for (const l of fl) for (let i = 0; i < perInterval; i++) got += l.take('192.0.2.1') === 0 ? 1 : 0;
        total += got;
        for (const l of fl) await l.sync();
        if (got === 0) break;
      }
      expect(total, `${perInterval} per replica per interval`).toBeGreaterThanOrEqual(max);
      expect(total, `${perInterval} per replica per interval`).toBeLessThanOrEqual(max + (fl.length - 1) * perInterval);
    }
  });

  it('without reconciliation each replica alone admits at most max (the worst case of the bound)', async () => {
    const {
      limiters: [a, b],
    } = await fleet(2, 5);
    let total = 0;
    for (const l of [a!, b!]) for (let i = 0; i < 20; i++) total += l.take('10.1.1.1') === 0 ? 1 : 0;
    expect(total).toBe(10); // max + (2 - 1) × max
    await a!.sync();
    await b!.sync();
    await a!.sync();
    expect(a!.take('10.1.1.1')).toBeGreaterThan(0);
    expect(b!.take('10.1.1.1')).toBeGreaterThan(0);
  });

  it('fails open to local counting, within the command deadline, when Redis is blackholed or down', async () => {
    const {
      limiters: [a, b],
    } = await fleet(2, 4);
    expect(a!.take('10.2.2.2')).toBe(0);
    server.pause();
    try {
      const t0 = performance.now();
      await a!.sync();
      expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 5);
      // take() never waits for Redis: it is synchronous. The local budget still holds.
      expect([a!.take('10.2.2.2'), a!.take('10.2.2.2'), a!.take('10.2.2.2')]).toEqual([0, 0, 0]);
      expect(a!.take('10.2.2.2')).toBeGreaterThan(0);
    } finally {
      server.resume();
    }
    await server.kill();
    try {
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) await b!.sync();
      expect(b!.take('10.3.3.3')).toBe(0);
      await b!.sync();
      expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 5);
    } finally {
      await server.restart();
    }
  });
});
