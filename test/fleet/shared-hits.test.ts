/**
 * Two replicas sharing one redis-server. A key fetched through
 * replica A is a HIT on replica B without any upstream request, and B serves
 * the remaining TTL (max-age not reset, Age carried), not a fresh one; B's
 * memory tier takes the entry on its second read from Redis.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { fakeClock } from '../helpers/clock.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, maxAge, startReplica, unstamped, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

describe('two replicas, one Redis: shared hits', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  // One clock for both replicas (they would share wall time); Redis expiries stay on real time.
  const clock = fakeClock(Date.now());

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = { redisUrl: redis.url };
    [a, b] = await Promise.all([startReplica([sim.url], patch, clock.now), startReplica([sim.url], patch, clock.now)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it.each([
    ['token/list', '/token/list'],
    ['block/detail', '/block/detail?h=4841000'],
  ])('%s fetched via A is a HIT on B with the remaining TTL', async (endpoint, path) => {
    const upstreamBefore = sim.stats()[endpoint] ?? 0;
    const viaA = await get(a.url, path);
    expect(viaA).toMatchObject({ status: 200, cache: 'MISS' });
    expect(viaA.headers['age']).toBe('0');
    const ageA = maxAge(viaA.headers);
    expect(ageA).toBeGreaterThan(60);
    expect(sim.stats()[endpoint] ?? 0).toBe(upstreamBefore + 1);

    clock.advance(7_000);
    const memB = b.memory.entries;
    const viaB = await get(b.url, path);
    expect(viaB).toMatchObject({ status: 200, cache: 'HIT' });
    expect(unstamped(viaB.text)).toBe(unstamped(viaA.text));
    expect(viaB.headers['etag']).toBe(viaA.headers['etag']);
    expect(viaB.headers['age']).toBe('7');
    expect(maxAge(viaB.headers)).toBeLessThanOrEqual(ageA - 7);
    expect(maxAge(viaB.headers)).toBeGreaterThanOrEqual(ageA - 8);

    // A first read from Redis leaves B's memory tier alone; the second promotes it, with the remaining TTL, not a fresh
    // one.
    expect(b.memory.entries).toBe(memB);
    const againB = await get(b.url, path);
    expect(againB).toMatchObject({ cache: 'HIT' });
    expect(againB.headers['age']).toBe('7');
    expect(maxAge(againB.headers)).toBe(maxAge(viaB.headers));
    expect(b.memory.entries).toBe(memB + 1);
    const held = await get(b.url, path);
    expect(held.headers['age']).toBe('7');
    expect(maxAge(held.headers)).toBe(maxAge(viaB.headers));

    expect(sim.stats()[endpoint] ?? 0).toBe(upstreamBefore + 1); // zero extra upstream requests
  });
});
