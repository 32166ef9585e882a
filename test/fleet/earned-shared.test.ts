/**
 * An entry's earned bound carries on across replicas: a replica that fetches
 * a key its memory tier does not hold replaces the shared tier's copy, so an
 * unchanged answer doubles the bound there as it would on the replica that
 * stored it (real redis-server, two replicas on one clock).
 */
import { expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { normalAddress } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { get, redisFleet, type Replica } from '../helpers/replica.js';

const describe = describeRedis();
const BOUND = 10_000;

describe('fleet: the earned bound', () => {
  let offset = 0;
  const clock = (): number => Date.now() + offset;
  const fleet = redisFleet(
    'earned-shared:',
    { invalidation: { ...defaultConfig().invalidation, listMaxAgeMs: BOUND, maxAgeGrowth: 16 } },
    clock,
  );
  const replica = (): Promise<Replica> => fleet.replica();

  it('doubles on the replica that did not store the entry, as on the one that did', async () => {
    const [a, b] = [await replica(), await replica()];
    const path = `/tx/listByAddress?address=${normalAddress(5, 3)}`;
    expect((await get(a.url, path)).headers['x-cache']).toBe('MISS');
    const key = a.memory.held().find((e) => e.key.startsWith('tx/listByAddress?'))!.key;
    const first = a.memory.peek(key)?.entry;
    expect(first === undefined ? null : first.freshUntil - first.createdAt).toBe(BOUND);
    expect(b.memory.peek(key)).toBeUndefined();

    // The bound passes with no block naming the address: b's client finds the shared copy expired.
    offset += BOUND + 1000;
    const answer = await get(b.url, path);
    expect(['STALE', 'MISS']).toContain(answer.headers['x-cache']);
    await waitFor(() => (b.memory.peek(key)?.entry.createdAt ?? 0) > (first?.createdAt ?? 0), 5000, "b's fetch");
    const next = b.memory.peek(key)!.entry;
    expect(next.freshUntil - next.createdAt).toBe(2 * BOUND);
  });
});
