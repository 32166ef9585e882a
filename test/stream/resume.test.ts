import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import { openStream } from './sse-client.js';
import { rig, streamConfig, untilFeed } from './kit.js';
import { untilHead } from '../helpers/until.js';

const r = rig();

describe('resuming with Last-Event-ID', () => {
  it('replays exactly the missed heads (header), then goes on live', async () => {
    const { sim, proxy } = await r.start();
    const first = await r.stream(proxy.url);
    await first.until(() => first.events.length === 1);
    const seen = Number(first.events[0]!.id);
    first.close();
    sim.chain.advance(4);
    await untilFeed(proxy, (e) => e === seen + 4, 'the missed heads');
    const again = await r.stream(proxy.url, { lastEventId: String(seen) });
    await again.until(() => again.events.length === 4, 10_000, 'the replay');
    expect(again.heights()).toEqual([seen + 1, seen + 2, seen + 3, seen + 4]);
    sim.chain.advance(1);
    await again.until(() => again.events.length === 5, 10_000, 'the next live head');
    expect(again.heights()).toEqual([seen + 1, seen + 2, seen + 3, seen + 4, seen + 5]);
  });

  it('accepts the id as a query parameter, and replays nothing when the client is up to date', async () => {
    const { sim, proxy } = await r.start();
    const head = sim.chain.head();
    sim.chain.advance(2);
    await untilFeed(proxy, (e) => e === head + 2, 'two heads');
    const q = await r.stream(proxy.url, { query: `?lastEventId=${head}` });
    await q.until(() => q.events.length === 2);
    expect(q.heights()).toEqual([head + 1, head + 2]);
    const current = await r.stream(proxy.url, { lastEventId: String(head + 2) });
    sim.chain.advance(1);
    await current.until(() => current.events.length === 1, 10_000, 'the live head');
    expect(current.heights()).toEqual([head + 3]);
  });

  it('replays what the bounded history holds, after a gap event naming the heights it no longer has', async () => {
    const { sim, proxy } = await r.start({ stream: streamConfig({ history: 3 }) });
    const head = sim.chain.head();
    for (let i = 1; i <= 6; i++) {
      sim.chain.advance(1);
      await untilFeed(proxy, (e) => e === head + i, `head ${head + i}`);
    }
    const c = await r.stream(proxy.url, { lastEventId: String(head) });
    await c.until(() => c.events.length === 4);
    expect(c.events[0]).toEqual({
      type: 'gap',
      id: String(head + 3),
      data: JSON.stringify({ from: head + 1, to: head + 3 }),
    });
    expect(c.heights()).toEqual([head + 4, head + 5, head + 6]);
  });

  it('names the heights a fresh replica cannot replay with a gap before its first event', async () => {
    const sim = await startSimulator({ blockIntervalMs: 0, seed: 5 });
    const proxy = await startTestProxy([sim.url], { upstream: { probeIntervalMs: 100 } });
    try {
      // The head is known, but no stream has opened yet: the history is empty.
      await untilHead(proxy.tracker, (h) => h !== null, 'the first probe');
      const head = sim.chain.head();
      const c = await openStream(proxy.url, { lastEventId: String(head - 10) });
      try {
        await c.until(() => c.events.length === 2, 10_000, 'the gap and the head');
        expect(c.events[0]).toEqual({
          type: 'gap',
          id: String(head - 1),
          data: JSON.stringify({ from: head - 9, to: head - 1 }),
        });
        expect(c.heights()).toEqual([head]);
      } finally {
        c.close();
      }
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});
