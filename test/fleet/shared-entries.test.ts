/**
 * The leader's refreshed entries reach the followers with its refresh round:
 * on a new block a follower holds the leader's fresh entry of a hot list
 * before any client asks it, and serves it as a HIT without reading the
 * upstream (real redis-server, two replicas).
 */
import { expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { counter, get, redisFleet, type Replica, untilFollows } from '../helpers/replica.js';

const describe = describeRedis();
const INTERVAL = 1000;
const PATH = '/tx/list?page_size=10';

describe("fleet: the leader's refreshed entries", () => {
  const fleet = redisFleet('shared-entries:', {
    refreshAhead: defaultConfig().refreshAhead,
    upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 0 },
  });
  const replica = (): Promise<Replica> => fleet.replica();

  it('are in the follower before its clients ask', async () => {
    const a = await replica();
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const b = await replica();
    await untilFollows(b, 'the second replica follows', INTERVAL * 4);
    // Explorer traffic on both makes the list hot; b reads it twice from Redis, so it is in b's memory.
    for (const r of [a, b]) for (let i = 0; i < 3; i++) await get(r.url, PATH);
    const key = b.memory.held().find((e) => e.key.startsWith('tx/list?'))?.key;
    expect(key).toBeDefined();
    const h0 = fleet.sim.chain.head();
    const asked = await counter(b.url, 'chainproxy_upstream_requests_total');

    fleet.sim.chain.advance(1);
    await waitFor(() => b.memory.peek(key!)?.entry.head === h0 + 1, INTERVAL * 5, "the leader's entry on the follower");
    const answer = await get(b.url, PATH);
    expect(answer.headers['x-cache']).toBe('HIT');
    const list = (JSON.parse(answer.text) as { data: { list: Array<{ block_height: number }> } }).data.list;
    expect(list[0]?.block_height).toBe(h0 + 1);
    expect(await counter(b.url, 'chainproxy_upstream_requests_total')).toBe(asked);
  });
});
