import { describe, expect, it } from 'vitest';
import { get } from '../helpers/replica.js';
import { rig } from './kit.js';

const r = rig();

interface Tx { block_height: number }
const newestTx = (text: string): Tx => (JSON.parse(text) as { data: { list: Tx[] } }).data.list[0]!;
const heightOf = (text: string): number => Number(/"height":(\d+)/.exec(text)![1]);

describe('refresh-ahead on a new head', () => {
  it('the next client request for a hot list is a HIT with the new block, after one upstream request for it', async () => {
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
  });

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
});
