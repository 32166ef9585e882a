import { describe, expect, it } from 'vitest';
import { counter, get } from '../helpers/replica.js';
import { rig } from '../stream/kit.js';
import { fakeClock } from '../helpers/clock.js';

const r = rig();

interface Tx {
  block_height: number;
}
const newestTx = (text: string): Tx => (JSON.parse(text) as { data: { list: Tx[] } }).data.list[0]!;
const heightOf = (text: string): number => Number(/"height":(\d+)/.exec(text)![1]);
const pageMeta = (text: string): { head: number | null; composed_at: number } =>
  (JSON.parse(text) as { meta: { head: number | null; composed_at: number } }).meta;
/** Parts of /pages/home no refresh-ahead key stands for (not head-relative: never hot keys). */
const HOME_COLD_PARTS = ['tx/count/today', 'tx/count/history', 'chain/summary', 'nax/summary'];
const compositions = (base: string): Promise<number> =>
  counter(base, 'chainproxy_page_composition_seconds_count', { page: 'home' });

describe('refresh-ahead on a new head', () => {
  it(
    'the next client request for a hot list is a HIT with the new block, ' + 'after one upstream request for it',
    async () => {
      const { sim, proxy } = await r.start();
      // Explorer traffic: the newest transactions at page size 10, the head.
      for (let i = 0; i < 3; i++) {
        await get(proxy.url, '/tx/list?page_size=10');
        await get(proxy.url, '/block/max');
      }
      const c = await r.stream(proxy.url);
      await c.until(() => c.events.length === 1);
      const before = sim.stats();
      sim.chain.advance(1);
      const head = sim.chain.head();
      await c.until(() => c.events.length === 2, 10_000, 'the head event');
      // The event is sent once the refresh is done: the client reacting to it hits the cache.
      const list = await get(proxy.url, '/tx/list?page_size=10');
      expect(list.cache).toBe('HIT');
      expect(newestTx(list.text).block_height).toBe(head);
      const max = await get(proxy.url, '/block/max');
      expect(max.cache).toBe('HIT');
      expect(heightOf(max.text)).toBe(head);
      const after = sim.stats();
      expect((after['tx/list'] ?? 0) - (before['tx/list'] ?? 0)).toBe(1);
    },
  );

  it('without it (REFRESH_AHEAD_MAX_KEYS=0) the same request is not a fresh hit', async () => {
    const { sim, proxy } = await r.start({ refreshAhead: { maxKeys: 0 } });
    for (let i = 0; i < 3; i++) await get(proxy.url, '/tx/list?page_size=10');
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    sim.chain.advance(1);
    await c.until(() => c.events.length === 2, 10_000, 'the head event');
    expect((await get(proxy.url, '/tx/list?page_size=10')).cache).not.toBe('HIT');
  });

  it('refreshes only keys clients asked for recently, at most REFRESH_AHEAD_MAX_KEYS', async () => {
    const { sim, proxy } = await r.start({ refreshAhead: { maxKeys: 1 } });
    for (let i = 0; i < 5; i++) await get(proxy.url, '/tx/list?page_size=10');
    for (let i = 0; i < 4; i++) await get(proxy.url, '/tx/list/pending?page_size=5');
    await get(proxy.url, '/tx/list?page=2&page_size=10');
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    const before = sim.stats();
    sim.chain.advance(1);
    await c.until(() => c.events.length === 2, 10_000, 'the head event');
    const after = sim.stats();
    // tx/list at page size 10 is the hottest key; pending comes second, beyond the bound.
    expect((after['tx/list'] ?? 0) - (before['tx/list'] ?? 0)).toBe(1);
    expect((after['tx/list/pending'] ?? 0) - (before['tx/list/pending'] ?? 0)).toBe(0);
    expect((await get(proxy.url, '/tx/list?page_size=10')).cache).toBe('HIT');
    expect((await get(proxy.url, '/tx/list?page=2&page_size=10')).cache).not.toBe('HIT');
  });

  it(
    'a home page clients read is recomposed on a new head: ' + 'the next /pages/home is a HIT at the new head',
    async () => {
      // A clock moved by hand: on a loaded machine seconds pass between the steps, and the home
      // page's one-second parts (block/max) would expire on their own, not by a new head.
      const clock = fakeClock(Date.now());
      const { sim, proxy } = await r.start({}, 0, clock.now);
      const first = await get(proxy.url, '/pages/home');
      expect(first.status).toBe(200);
      expect(pageMeta(first.text).head).toBe(sim.chain.head());
      const c = await r.stream(proxy.url);
      await c.until(() => c.events.length === 1);
      expect(await compositions(proxy.url)).toBe(1);
      clock.advance(100);
      sim.chain.advance(1);
      const head = sim.chain.head();
      // The event is sent once refresh-ahead (the home page included) is done.
      await c.until(() => c.heights().includes(head), 10_000, 'the head event');
      expect(await compositions(proxy.url)).toBe(2);
      const next = await get(proxy.url, '/pages/home');
      expect(next.status).toBe(200);
      expect(next.cache).toBe('HIT');
      const meta = pageMeta(next.text);
      expect(meta.head).toBe(head);
      expect(meta.composed_at).toBeGreaterThan(pageMeta(first.text).composed_at);
      expect(await compositions(proxy.url)).toBe(2);
    },
  );

  it('a home page nobody read is not composed on a new head: its other parts get no upstream request', async () => {
    const { sim, proxy } = await r.start();
    // Explorer traffic on the hot lists, none on the home page.
    for (let i = 0; i < 3; i++) await get(proxy.url, '/block/max');
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    const before = sim.stats();
    sim.chain.advance(1);
    const head = sim.chain.head();
    await c.until(() => c.heights().includes(head), 10_000, 'the head event');
    const after = sim.stats();
    for (const name of HOME_COLD_PARTS) expect((after[name] ?? 0) - (before[name] ?? 0), name).toBe(0);
    expect(await compositions(proxy.url)).toBe(0);
    // The hot key was refreshed ahead all the same.
    expect((await get(proxy.url, '/block/max')).cache).toBe('HIT');
  });
});
