/**
 * The fleet-wide single-flight check, shared by the Redis and Redis Cluster
 * suites (not a test file): 2 x N concurrent cold requests for one key, split
 * across two replicas sharing the backend, make exactly one upstream request.
 * The upstream holds its answer until released, so every request is really
 * waiting at the same time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConfigPatch } from './proxy.js';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from './fake-upstream.js';
import { get, startReplica, unstamped, type Replica } from './replica.js';

export interface SharedBackend {
  url: string;
  stop(): Promise<void>;
}

export function fleetSingleFlight(
  start: () => Promise<SharedBackend>,
  total: number,
  redis: NonNullable<ConfigPatch['redis']> = {},
): void {
  let backend: SharedBackend;
  let upstream: FakeUpstream;
  let a: Replica;
  let b: Replica;
  const { handler, release } = heldFixtures('/token/list');

  beforeAll(async () => {
    [backend, upstream] = await Promise.all([start(), startFakeUpstream(handler)]);
    // One upstream and no hedging: only the lease can keep the count at one.
    const patch = {
      redisUrl: backend.url,
      upstream: { hedgeAfterMs: 0, maxAttempts: 1 },
      redis: { leaseMs: 5000, ...redis },
    };
    [a, b] = await Promise.all([startReplica([upstream.url], patch), startReplica([upstream.url], patch)]);
  });
  afterAll(async () => {
    release();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([upstream?.close(), backend?.stop()]);
  });

  it(`makes one upstream request for 2 x ${total / 2} concurrent cold requests`, async () => {
    const all = Promise.all(Array.from({ length: total }, (_, i) => get(i % 2 === 0 ? a.url : b.url, '/token/list')));
    await upstream.arrived(1, '/token/list', 'the leader reaching the upstream');
    // Both replicas hold a flight for the key: the leader's fetch on one, the lease wait on the other.
    await waitFor(
      () => a.resolver.inFlight === 1 && b.resolver.inFlight === 1,
      5000,
      'both replicas waiting on the key',
    );
    release();
    const answers = await all;

    expect(upstream.count('/token/list')).toBe(1);
    expect(answers.map((r) => r.status)).toEqual(Array(total).fill(200));
    const bodies = new Set(answers.map((r) => unstamped(r.text)));
    expect(bodies.size).toBe(1);
    // The replica that led the flight says MISS (its requests that came after the store, HIT); the other's answers
    // caused no upstream request: HIT.
    const words = (url: string): string[] =>
      [
        ...new Set(answers.filter((_, i) => (i % 2 === 0 ? a.url : b.url) === url).map((r) => r.cache ?? 'none')),
      ].sort();
    const [led, followed] = words(a.url).includes('MISS') ? [a.url, b.url] : [b.url, a.url];
    expect(words(led)).toContain('MISS');
    expect(words(followed)).toEqual(['HIT']);
    // And afterwards it is a plain hit everywhere.
    expect(await get(a.url, '/token/list')).toMatchObject({ cache: 'HIT' });
    expect(await get(b.url, '/token/list')).toMatchObject({ cache: 'HIT' });
    expect(upstream.count('/token/list')).toBe(1);
  });
}
