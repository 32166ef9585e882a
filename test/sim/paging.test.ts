import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalAddress, type SimulatorHandle } from '../../src/sim/index.js';
import { get, getJson, sim, type Paged } from './util.js';

let s: SimulatorHandle;
beforeAll(async () => {
  s = await sim();
});
afterAll(() => s.close());

describe('paging math and links', () => {
  it('defaults to page 1 of 20; previous null on page 1; links use the own URL by default', async () => {
    const p = await getJson<Paged>(s.url, '/block/list');
    expect(p.data.current_page).toBe(1);
    expect(p.data.list).toHaveLength(20);
    expect(p.data.previous).toBeNull();
    expect(p.data.next).toBe(s.url + '/block/list?page=2&page_size=20');
    expect(p.data.total_page).toBe(Math.ceil(p.data.count / 20));
  });

  it('previous is the URL of page-1, next of page+1, and following next reaches the same data', async () => {
    const p3 = await getJson<Paged<{ height: number }>>(s.url, '/block/list?page=3&page_size=5');
    expect(p3.data.previous).toBe(s.url + '/block/list?page=2&page_size=5');
    expect(p3.data.next).toBe(s.url + '/block/list?page=4&page_size=5');
    const p4 = await getJson<Paged<{ height: number }>>(s.url, p3.data.next!.slice(s.url.length));
    expect(p4.data.list[0]!.height).toBe(p3.data.list[4]!.height - 1);
  });

  it('tx/list pages tile the chain (page 1 of 10 = pages 1+2 of 5), newest first across blocks', async () => {
    const big = await getJson<Paged<{ tx_hash: string; block_height: number }>>(s.url, '/tx/list?page_size=10');
    const a = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list?page=1&page_size=5');
    const b = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list?page=2&page_size=5');
    expect([...a.data.list, ...b.data.list].map((t) => t.tx_hash)).toEqual(big.data.list.map((t) => t.tx_hash));
    const heights = big.data.list.map((t) => t.block_height);
    expect([...heights].sort((x, y) => y - x)).toEqual(heights);
    expect(heights[0]).toBe(s.chain.head());
  });

  it("tx/list?block_height lists exactly the block's txs; links keep block_height first", async () => {
    const h = s.chain.head() - 100;
    const blk = await getJson<{ tx_count: number }>(s.url, '/block/detail?h=' + h);
    const l = await getJson<Paged<{ block_height: number }>>(s.url, `/tx/list?block_height=${h}&page_size=1`);
    expect(l.data.count).toBe(blk.data.tx_count);
    expect(l.data.list[0]!.block_height).toBe(h);
    if (l.data.count > 1) expect(l.data.next).toBe(`${s.url}/tx/list?block_height=${h}&page=2&page_size=1`);
    const future = await getJson<Paged>(s.url, `/tx/list?block_height=${s.chain.head() + 5}`);
    expect(future.data).toMatchObject({ count: 0, total_page: 0, list: [], next: null });
  });

  it('a page beyond the last is an empty list with the true count; next null on the last page', async () => {
    const addr = normalAddress(1, 140_000); // few transactions (receives only)
    const first = await getJson<Paged>(s.url, `/tx/listByAddress?address=${addr}&page_size=100`);
    expect(first.data.count).toBeGreaterThan(0);
    expect(first.data.total_page).toBe(1);
    expect(first.data.next).toBeNull();
    const beyond = await getJson<Paged>(s.url, `/tx/listByAddress?address=${addr}&page=9&page_size=100`);
    expect(beyond.data.list).toEqual([]);
    expect(beyond.data.count).toBe(first.data.count);
    expect(beyond.data.previous).toBe(`${s.url}/tx/listByAddress?address=${addr}&page=8&page_size=100`);
  });

  it('page_size above 100 is clamped to 100 (and links carry 100)', async () => {
    const p = await getJson<Paged>(s.url, '/tx/list?page_size=1000');
    expect(p.data.list).toHaveLength(100);
    expect(p.data.next).toBe(s.url + '/tx/list?page=2&page_size=100');
  });

  it('an advertised URL is used for links', async () => {
    const t = await sim({ advertisedUrl: 'http://data.nebulas.io/' });
    try {
      const p = await getJson<Paged>(t.url, '/contracts?page=2&page_size=2');
      expect(p.data.next).toBe('http://data.nebulas.io/contracts?page=3&page_size=2');
      expect(p.data.previous).toBe('http://data.nebulas.io/contracts?page=1&page_size=2');
    } finally {
      await t.close();
    }
  });

  it('holders are capped at 400 pages', async () => {
    const p = await getJson<Paged>(s.url, '/holders?page=401&page_size=2');
    expect(p.data.total_page).toBe(400);
    expect(p.data.list).toEqual([]);
    const last = await get(s.url, '/holders?page=400&page_size=2');
    expect(JSON.parse(last.text).data.next).toBeNull();
  });
});
