/**
 * A background refresh reads the shared tier first: the replicas' copies of an
 * entry expire together, and the replica whose client comes second takes the
 * first one's refreshed entry from Redis instead of asking the upstream again
 * (real redis-server, two replicas on one clock).
 */
import { expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { get, redisFleet, type Replica } from '../helpers/replica.js';

const describe = describeRedis();
const TTL = 10_000;
const PATH = '/token/list';

describe('fleet: a background refresh', () => {
  let offset = 0;
  const clock = (): number => Date.now() + offset;
  const fleet = redisFleet(
    'refresh-shared:',
    { policies: { 'token/list': { ttlMs: TTL, swrMs: 6 * TTL, sieMs: 6 * TTL } } },
    clock,
  );
  const replica = (): Promise<Replica> => fleet.replica();
  const lists = (): number => fleet.sim.stats()['token/list'] ?? 0;
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
