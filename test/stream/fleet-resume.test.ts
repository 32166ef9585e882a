/**
 * The head stream's resume history is the fleet's (a Redis Stream): a client
 * that streamed from replica A, went away while blocks passed, and comes back
 * through the balancer to replica B (which never streamed) with Last-Event-ID
 * gets the events it missed from B, no `gap`; a resume point older than
 * anything the fleet recorded gets a `gap` for the heights before it.
 */
import { expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis } from '../helpers/redis-server.js';
import { redisFleet } from '../helpers/replica.js';
import { openStream, type SseClient } from './sse-client.js';

const describe = describeRedis();

describe('head stream resume across a fleet', () => {
  const fleet = redisFleet('fleet-resume:', { upstream: { probeIntervalMs: 100 } });
  const clients: SseClient[] = [];
  const open = async (url: string, lastEventId?: string): Promise<SseClient> => {
    const c = await openStream(url, lastEventId === undefined ? {} : { lastEventId });
    clients.push(c);
    return c;
  };

  it('a reconnect to another replica replays what it missed; before the history, a gap', async () => {
    const [a, b] = await Promise.all([fleet.replica(), fleet.replica()]);
    try {
      const sim = fleet.sim;
      const head = sim.chain.head();
      await Promise.all([a, b].map((r) => waitHead(r.tracker, head)));
      // A client on A: its first event is the current head; A streams from then on.
      const first = await open(a.url);
      await first.until(() => first.heights().includes(head), 15_000, 'the current head on A');
      const watcher = await open(a.url, String(head));
      first.close();
      sim.chain.advance(3);
      await watcher.until(() => watcher.heights().includes(head + 3), 15_000, 'three blocks on A');
      await waitHead(b.tracker, head + 3);

      // The same client comes back through the balancer to B, which never streamed.
      const back = await open(b.url, String(head));
      await back.until(() => back.heights().includes(head + 3), 15_000, 'the missed blocks from B');
      expect(back.status).toBe(200);
      expect(back.typed('gap')).toEqual([]);
      expect(back.heights()).toEqual([head + 1, head + 2, head + 3]);
      expect(back.events.map((e) => e.id)).toEqual([head + 1, head + 2, head + 3].map(String));

      // From before the first height the fleet recorded: a gap up to it, then the history.
      const old = await open(b.url, String(head - 10));
      await old.until(() => old.heights().includes(head + 3), 15_000, 'the history after the gap');
      expect(old.typed('gap').map((e) => JSON.parse(e.data) as unknown)).toEqual([{ from: head - 9, to: head - 1 }]);
      expect(old.heights()).toEqual([head, head + 1, head + 2, head + 3]);
    } finally {
      for (const c of clients) c.close();
    }
  });
});

async function waitHead(tracker: { bestHead(): number | null }, height: number): Promise<void> {
  await waitFor(() => (tracker.bestHead() ?? -1) >= height, 15_000, `head ${height}`);
}
