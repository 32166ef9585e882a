/**
 * A fleet cannot mix base URLs: Redis entries are keyed by PUBLIC_BASE_URL,
 * so two replicas that disagree on it never serve each other's links (each
 * fetches for itself), while replicas that agree keep sharing hits.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

describe('replicas with different PUBLIC_BASE_URL on one Redis', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  let a2: Replica;

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    [a, b, a2] = await Promise.all([
      startReplica([sim.url], { redisUrl: redis.url, publicBaseUrl: 'https://a.example.test' }),
      startReplica([sim.url], { redisUrl: redis.url, publicBaseUrl: 'https://b.example.test' }),
      startReplica([sim.url], { redisUrl: redis.url, publicBaseUrl: 'https://a.example.test' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), a2?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it("never serve each other's links", async () => {
    const path = '/block/list?page=2';
    const viaA = await get(a.url, path);
    expect(viaA).toMatchObject({ status: 200, cache: 'MISS' });
    expect(viaA.text).toContain('"next":"https://a.example.test/');

    const viaB = await get(b.url, path);
    expect(viaB.status).toBe(200);
    expect(viaB.cache).toBe('MISS');
    expect(viaB.text).toContain('"next":"https://b.example.test/');
    expect(viaB.text).not.toContain('a.example.test');

    // A replica with the same base URL still shares A's entry.
    const viaA2 = await get(a2.url, path);
    expect(viaA2).toMatchObject({ status: 200, cache: 'HIT' });
    expect(viaA2.text).toContain('"next":"https://a.example.test/');
  });
});
