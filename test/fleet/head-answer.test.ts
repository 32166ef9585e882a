/**
 * A follower serves the head the leader serves: the leader's probe answer goes
 * out with its heads, and a follower that believes that head makes it its
 * head entry at once, without an upstream request or waiting for its own
 * entry to expire (real redis-server, two replicas). The head entry's TTL is
 * raised to a minute, so a follower that waited for expiry would fail here.
 */
import { expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { counter, get, redisFleet, type Replica, untilFollows } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedis();
const INTERVAL = 1000;
const MINUTE = 60_000;

describe("fleet: the leader's head answer", () => {
  const fleet = redisFleet('head-answer:', {
    policies: { 'block/max': { ttlMs: MINUTE, swrMs: MINUTE, sieMs: MINUTE, finalTtlMs: MINUTE } },
    upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 0 },
  });
  const replica = (): Promise<Replica> => fleet.replica();
  const shown = async (r: Replica): Promise<number> =>
    (JSON.parse((await get(r.url, '/block/max')).text) as { data: { height: number } }).data.height;

  it('reaches the follower with the head: served there from memory, no upstream request of its own', async () => {
    const a = await replica();
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const b = await replica();
    await untilFollows(b, 'the second replica follows', INTERVAL * 4);
    const h0 = fleet.sim.chain.head();
    expect(await shown(a)).toBe(h0);
    expect(await shown(b)).toBe(h0);

    for (let i = 1; i <= 2; i++) {
      fleet.sim.chain.advance(1);
      await untilHead(b.tracker, (h) => h === h0 + i, `the follower believes ${h0 + i}`, INTERVAL * 5);
      const before = await counter(b.url, 'chainproxy_upstream_requests_total');
      // The heads message follows the head message: the follower installs the answer it carries.
      await waitFor(() => b.memory.peek('block/max')?.entry.head === h0 + i, INTERVAL * 3, 'the installed answer');
      const answer = await get(b.url, '/block/max');
      expect(answer.headers['x-cache']).toBe('HIT');
      expect((JSON.parse(answer.text) as { data: { height: number } }).data.height).toBe(h0 + i);
      expect(await shown(a)).toBe(h0 + i);
      // The follower asked the upstream nothing.
      expect(await counter(b.url, 'chainproxy_upstream_requests_total')).toBe(before);
    }
  });
});
