/**
 * An activity stream resumed on another replica of a fleet (Redis): the
 * client watched its addresses on replica A, went away while blocks passed,
 * and comes back to replica B (which never watched them) with Last-Event-ID:
 * B replays the blocks that named them from the fleet's record of touched
 * sets, no `gap`; a resume point older than the record gets a `gap` up to it.
 * Touched sets are published as the block reader does (activity-kit.ts), and
 * recorded once in Redis, as the reader holding the block's lease does.
 */
import { expect, it } from 'vitest';
import { describeRedis } from '../helpers/redis-server.js';
import { redisFleet, type Replica } from '../helpers/replica.js';
import { ACTIVITY, onlyAt, truthSet, type ActivityData } from './activity-kit.js';
import { openStream, type SseClient } from './sse-client.js';
import { untilHead } from '../helpers/until.js';
import { untilHub } from './kit.js';

const describe = describeRedis();
const data = (d: string): ActivityData => JSON.parse(d) as ActivityData;

/** Block h published on every replica; its tx/list page read on `reader` (cached fleet-wide) and recorded once. */
async function publish(reader: Replica, all: readonly Replica[], h: number): Promise<void> {
  const set = truthSet(h);
  for (const r of all) await untilHead(r.tracker, (b) => (b ?? 0) >= h, `head ${h}`, 15_000);
  const page = await fetch(`${reader.url}/tx/list?block_height=${h}&page=1&page_size=100`);
  expect(page.status).toBe(200);
  await page.arrayBuffer();
  await reader.fleet!.record.add(set);
  for (const r of all) {
    r.stream.activity.touched.publishBlock(set);
    await r.stream.activity.feed.settled();
  }
}

describe('activity stream resume across a fleet', () => {
  // The simulator's seed is activity-kit's SEED (5): its touched sets are the truth's.
  const fleet = redisFleet('activity-resume:', { upstream: { probeIntervalMs: 100 } });
  const clients: SseClient[] = [];

  it('on another replica: the blocks that named its addresses; before the record, a gap', async () => {
    const [a, b] = await Promise.all([fleet.replica(), fleet.replica()]);
    try {
      const sim = fleet.sim;
      const h0 = sim.chain.head();
      const range = [h0 + 1, h0 + 2, h0 + 3, h0 + 4];
      const a1 = onlyAt(h0 + 1, range);
      const a3 = onlyAt(h0 + 3, range);
      const q = `?address=${a1}&address=${a3}`;
      const c1 = await openStream(a.url, { path: ACTIVITY, query: q });
      clients.push(c1);
      await untilHub(a, () => a.stream.activity.status().watched === 2, 'the watch on A', 15_000);
      sim.chain.advance();
      await publish(a, [a, b], h0 + 1);
      await c1.until(() => c1.events.length === 1, 15_000, 'the first event on A');
      c1.close();
      for (const h of [h0 + 2, h0 + 3, h0 + 4]) {
        sim.chain.advance();
        await publish(a, [a, b], h);
      }

      // Back through the balancer to B, which never watched these addresses.
      const c2 = await openStream(b.url, { path: ACTIVITY, query: q, lastEventId: c1.events[0]!.id! });
      clients.push(c2);
      await c2.until(() => c2.events.length >= 1, 15_000, 'the replay from B');
      expect(c2.events.map((e) => [e.type, e.id])).toEqual([['message', String(h0 + 3)]]);
      expect(data(c2.events[0]!.data).block_hash).toBe(truthSet(h0 + 3).blockHash);
      expect(data(c2.events[0]!.data).txs.length).toBeGreaterThan(0);
      expect(data(c2.events[0]!.data).txs.every((t) => JSON.stringify(t).includes(a3))).toBe(true);

      // From before the first block the fleet recorded: a gap up to it, then the blocks that named them.
      const c3 = await openStream(b.url, { path: ACTIVITY, query: q, lastEventId: String(h0 - 5) });
      clients.push(c3);
      await c3.until(() => c3.events.length >= 3, 15_000, 'the gap and the replay');
      expect(c3.events.map((e) => [e.type, e.id])).toEqual([
        ['gap', String(h0)],
        ['message', String(h0 + 1)],
        ['message', String(h0 + 3)],
      ]);
      expect(JSON.parse(c3.events[0]!.data)).toEqual({ from: h0 - 4, to: h0 });
    } finally {
      for (const c of clients) c.close();
    }
  });
});
