/**
 * The stream follows the tracker's rebases: when the proxy follows its
 * upstreams back down (after a bogus head, or a legitimate follow-down),
 * events above the real head are dropped from the history, subscribers that
 * got them are told with a `rebase` event, and events go on from the real head
 * instead of waiting for the chain to reach the phantom height.
 */
import { describe, expect, it } from 'vitest';
import { headOf } from './sse-client.js';
import { rig, waitFor } from './kit.js';
import { untilHead } from '../helpers/until.js';

const r = rig();

describe('rebase', () => {
  it(
    'after a bogus head: subscribers are told, ' +
      'events go on from the real head, new subscribers never get the phantom',
    async () => {
      const { sim, proxy, relays } = await r.start({}, 2);
      const a = await r.stream(proxy.url);
      await a.until(() => a.events.length === 1);
      const real = sim.chain.head();
      // Both upstreams report a head 5000 ahead: confirmed, so believed.
      for (const x of relays) x.lie(real + 5000);
      await a.until(() => a.heights().includes(real + 5000), 10_000, 'the phantom head');
      expect(headOf(a.events[a.events.length - 1]!).block).toBeNull();
      for (const x of relays) x.lie(null);
      await a.until(() => a.typed('rebase').length === 1, 10_000, 'the rebase event');
      const told = a.typed('rebase')[0]!;
      expect(told.id).toBe(String(real));
      expect(JSON.parse(told.data)).toMatchObject({ height: real, from: real + 5000 });

      // A new subscriber gets the real newest event, never the phantom.
      const b = await r.stream(proxy.url);
      await b.until(() => b.events.length === 1);
      expect(b.heights()).toEqual([real]);
      expect(headOf(b.events[0]!).block).not.toBeNull();

      // The next block reaches both, with its record.
      sim.chain.advance(1);
      await a.until(() => a.heights().at(-1) === real + 1, 10_000, 'the next real head');
      await b.until(() => b.heights().at(-1) === real + 1, 10_000, 'the next real head');
      expect(headOf(a.events[a.events.length - 1]!).block).not.toBeNull();

      // A client resuming from the phantom id is told too, then goes on live.
      const c = await r.stream(proxy.url, { lastEventId: String(real + 5000) });
      await c.until(() => c.events.length === 1);
      expect(c.events[0]).toMatchObject({ type: 'rebase', id: String(real + 1) });
      sim.chain.advance(1);
      await c.until(() => c.heights().includes(real + 2), 10_000, 'the live head after the rebase');
      expect(c.heights()).toEqual([real + 2]);
    },
  );

  it(
    'after a legitimate follow-down: ' + 'a client that resumes from a dropped height is told and gets the new heights',
    async () => {
      const { sim, proxy, relays } = await r.start({}, 2);
      const a = await r.stream(proxy.url);
      await a.until(() => a.events.length === 1);
      const real = sim.chain.head();
      // Plausible heads (within the margin): believed at once, then every upstream goes back.
      for (const x of relays) x.lie(real + 5);
      await a.until(() => a.heights().includes(real + 5), 10_000, 'the heads the upstreams later drop');
      for (const x of relays) x.lie(null);
      await a.until(() => a.typed('rebase').length === 1, 10_000, 'the rebase event');
      expect(a.events.at(-1)).toMatchObject({ type: 'rebase', id: String(real) });
      const told = a.events.length;
      sim.chain.advance(5);
      await a.until(() => a.events.length === told + 5, 10_000, 'the new heights');
      // Heights above the rebase are sent again as the chain reaches them, now with their records.
      expect(a.events.slice(told).map((e) => Number(e.id))).toEqual([real + 1, real + 2, real + 3, real + 4, real + 5]);
      expect(a.events.slice(told).map((e) => headOf(e).block?.['height'] ?? null)).toEqual([
        real + 1,
        real + 2,
        real + 3,
        real + 4,
        real + 5,
      ]);

      const d = await r.stream(proxy.url, { lastEventId: String(real + 3) });
      await d.until(() => d.events.length === 6, 10_000, 'the rebase and the replay');
      expect(d.events[0]).toMatchObject({ type: 'rebase', id: String(real) });
      expect(d.heights()).toEqual([real + 1, real + 2, real + 3, real + 4, real + 5]);
    },
  );

  it('a rebase while the feed reads a page: no event is made for the height no longer believed', async () => {
    const { sim, proxy, relays } = await r.start({}, 2);
    const a = await r.stream(proxy.url);
    await a.until(() => a.events.length === 1);
    const real = sim.chain.head();
    const pages = relays.reduce((n, x) => n + x.count('/block/list'), 0);
    for (const x of relays) x.hold();
    for (const x of relays) x.lie(real + 5000);
    await waitFor(
      () => proxy.tracker.bestHead() === real + 5000 && relays.reduce((n, x) => n + x.count('/block/list'), 0) > pages,
      'the feed reading the page for the phantom head',
    );
    for (const x of relays) x.lie(null);
    await untilHead(proxy.tracker, (h) => h === real, 'the follow-down');
    for (const x of relays) x.release();
    sim.chain.advance(1);
    await a.until(() => a.heights().at(-1) === real + 1, 10_000, 'the next real head');
    expect(a.heights()).toEqual([real, real + 1]);
    expect(a.typed('rebase')).toHaveLength(0);
  });
});
