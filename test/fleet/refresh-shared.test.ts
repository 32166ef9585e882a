/**
 * A background refresh reads the shared tier first: the replicas' copies of an
 * entry expire together, and the replica whose client comes second takes the
 * first one's refreshed entry from Redis instead of asking the upstream again
 * (real redis-server, two replicas on one clock).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();
const TTL = 10_000;
const PATH = '/token/list';

describe('fleet: a background refresh', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let offset = 0;
  const clock = (): number => Date.now() + offset;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 5 })]);
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  async function replica(): Promise<Replica> {
    const r = await startReplica(
      [sim.url],
      {
        redisUrl: redis.url,
        redis: { keyPrefix: 'refresh-shared:' },
        policies: { 'token/list': { ttlMs: TTL, swrMs: 6 * TTL, sieMs: 6 * TTL } },
      },
      clock,
    );
    closers.push(() => r.close());
    return r;
  }
  const lists = (): number => sim.stats()['token/list'] ?? 0;
  const created = (r: Replica): number | undefined => r.memory.peek('token/list')?.entry.createdAt;

  it("takes another replica's refreshed entry from Redis instead of asking the upstream", async () => {
    const [a, b] = [await replica(), await replica()];
    const before = lists();
    expect((await get(a.url, PATH)).headers['x-cache']).toBe('MISS');
    // Read twice from Redis: admitted into b's memory tier.
    for (let i = 0; i < 2; i++) expect((await get(b.url, PATH)).headers['x-cache']).toBe('HIT');
    const first = created(b);
    expect(first).toBe(created(a));
    expect(lists() - before).toBe(1);

    offset += TTL + 1000;
    expect((await get(a.url, PATH)).headers['x-cache']).toBe('STALE');
    await waitFor(() => (created(a) ?? 0) > (first ?? 0), 5000, "a's refresh");
    expect(lists() - before).toBe(2);

    expect((await get(b.url, PATH)).headers['x-cache']).toBe('STALE');
    await waitFor(() => (created(b) ?? 0) > (first ?? 0), 5000, "b's refresh");
    expect(created(b)).toBe(created(a));
    expect(lists() - before).toBe(2);
    expect((await get(b.url, PATH)).headers['x-cache']).toBe('HIT');
  });
});
