/**
 * Replays are paced with backpressure (write while the socket takes it, then
 * wait for drain), so a resume hundreds of events back is delivered whole
 * whatever STREAM_MAX_BUFFER_BYTES, which bounds what waits for a slow
 * reader of live events. A resume point older than the history gets a `gap`
 * event and what is kept, never a reset.
 */
import { describe, expect, it } from 'vitest';
import type { Rig } from './kit.js';
import { counter } from '../helpers/replica.js';
import { rig, streamConfig, untilFeed } from './kit.js';

const r = rig();

/** Makes `n` more head events, 100 heights per step (the feed's largest step). */
async function heads(t: Rig, n: number): Promise<void> {
  for (let left = n; left > 0; left -= 100) {
    t.sim.chain.advance(Math.min(100, left));
    const target = t.sim.chain.head();
    await untilFeed(t.proxy, (e) => e === target, `head ${target}`);
  }
}

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

describe('paced replays', () => {
  it('replays 1000 events to a resuming client whole, though they are many times STREAM_MAX_BUFFER_BYTES', async () => {
    const t = await r.start({
      stream: streamConfig({ history: 1024, maxBufferBytes: 16 * 1024 }),
      limits: { maxPageSize: 100 },
    });
    const start = t.sim.chain.head();
    await heads(t, 1000);
    const c = await r.stream(t.proxy.url, { lastEventId: String(start) });
    await c.until(() => c.events.length === 1000 || c.ended, 20_000, 'the whole replay');
    expect(c.ended).toBe(false);
    expect(c.heights()).toEqual(range(start + 1, 1000));
    const bytes = c.events.reduce((n, e) => n + e.data.length, 0);
    expect(bytes).toBeGreaterThan(10 * 16 * 1024);
    expect(await counter(t.proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'slow' })).toBe(0);
    // Live events follow the replay on the same connection.
    t.sim.chain.advance(1);
    await c.until(() => c.events.length === 1001, 10_000, 'the next live head');
    expect(c.heights().at(-1)).toBe(start + 1001);
  });

  it(
    'answers a resume point older than the history with a gap event and what is kept; ' +
      'resuming from the last id seen goes on',
    async () => {
      const t = await r.start({
        stream: streamConfig({ history: 200, maxBufferBytes: 16 * 1024 }),
        limits: { maxPageSize: 100 },
      });
      const start = t.sim.chain.head();
      await heads(t, 300);
      const c = await r.stream(t.proxy.url, { lastEventId: String(start) });
      await c.until(() => c.events.length === 201 || c.ended, 20_000, 'the gap and the kept events');
      expect(c.events[0]).toEqual({
        type: 'gap',
        id: String(start + 100),
        data: JSON.stringify({ from: start + 1, to: start + 100 }),
      });
      expect(c.heights()).toEqual(range(start + 101, 200));
      // As EventSource does after any disconnect: reconnect with the last id seen.
      c.close();
      const again = await r.stream(t.proxy.url, { lastEventId: c.events.at(-1)!.id! });
      t.sim.chain.advance(1);
      await again.until(() => again.events.length === 1, 10_000, 'the live head');
      expect(again.events[0]).toMatchObject({ type: 'message', id: String(start + 301) });
      expect(await counter(t.proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'slow' })).toBe(0);
    },
  );
});
