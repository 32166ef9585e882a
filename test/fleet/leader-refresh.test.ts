/**
 * Refresh-ahead runs once per fleet: on a new head only the leader fetches
 * the hot head-dependent entries again; a follower serves them from the Redis
 * tier without an upstream request of its own (real redis-server, two replicas).
 */
import { expect, it, onTestFinished } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { counter, get, redisFleet, type Replica, untilFollows } from '../helpers/replica.js';
import { openStream, type SseClient } from '../stream/sse-client.js';

const describe = describeRedis();
/** Probe interval: a loaded machine's event-loop stalls stay well below it (the lease lasts 1.5 intervals). */
const INTERVAL = 1000;

describe('fleet leader: refresh-ahead once per fleet', () => {
  const fleet = redisFleet('refresh:', {
    refreshAhead: defaultConfig().refreshAhead,
    upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 0 },
  });
  const replica = (): Promise<Replica> => fleet.replica();
  async function stream(base: string): Promise<SseClient> {
    const c = await openStream(base);
    onTestFinished(() => c.close());
    await c.until(() => c.events.length >= 1, 10_000, 'the first head event');
    return c;
  }
  const refreshes = (r: Replica) => counter(r.url, 'chainproxy_refresh_ahead_total');

  it('only the leader refreshes the hot lists; the follower serves the new block from the Redis tier', async () => {
    const a = await replica();
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const b = await replica();
    await untilFollows(b, 'the second replica follows', INTERVAL * 4);
    // Explorer traffic on both: the newest transactions at page size 10.
    for (const r of [a, b]) for (let i = 0; i < 3; i++) await get(r.url, '/tx/list?page_size=10');
    const [sa, sb] = [await stream(a.url), await stream(b.url)];
    const [ra, rb] = [await refreshes(a), await refreshes(b)];
    const before = fleet.sim.stats()['tx/list'] ?? 0;

    fleet.sim.chain.advance(1);
    const head = fleet.sim.chain.head();
    // Each replica's head event is sent once its refresh-ahead step is done.
    const sawHead = (c: SseClient) => c.events.some((e) => e.id === String(head));
    await Promise.all([
      sa.until(() => sawHead(sa), 10_000, 'the head on the leader'),
      sb.until(() => sawHead(sb), 10_000, 'the head on the follower'),
    ]);
    expect(await refreshes(a)).toBeGreaterThan(ra);
    expect(await refreshes(b)).toBe(rb);

    const list = await get(b.url, '/tx/list?page_size=10');
    expect(list.status).toBe(200);
    expect(
      (JSON.parse(list.text) as { data: { list: Array<{ block_height: number }> } }).data.list[0]?.block_height,
    ).toBe(head);
    expect((fleet.sim.stats()['tx/list'] ?? 0) - before).toBe(1);
  });
});
