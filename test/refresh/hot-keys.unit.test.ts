import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import type { EndpointName } from '../../src/catalogue/types.js';
import { HotKeys, isHeadPage } from '../../src/pipeline/hot-keys.js';

const catalogue = buildCatalogue();
const limits = { maxPageSize: 100, maxDays: 365 };
const req = (name: EndpointName, query = '') => canonicalize(catalogue.get(name), query, limits);
const ADDRESS = 'n1JmhE82GNjdZPNZr6dgUuSfzy2WRwmZ16n';

describe('hot keys', () => {
  it('tracks the head and the first pages of the lists that move with it, nothing else', () => {
    expect(isHeadPage(req('block/max'))).toBe(true);
    expect(isHeadPage(req('tx/list', 'page_size=10'))).toBe(true);
    expect(isHeadPage(req('tx/list/pending'))).toBe(true);
    expect(isHeadPage(req('block/list', 'page=1&page_size=50'))).toBe(true);
    expect(isHeadPage(req('address/info', `address=${ADDRESS}`))).toBe(false);
    expect(isHeadPage(req('tx/list', 'page=2'))).toBe(false);
    expect(isHeadPage(req('tx/list', 'block_height=100'))).toBe(false);
    expect(isHeadPage(req('block/detail', 'h=100'))).toBe(false);
    expect(isHeadPage(req('token/list'))).toBe(false);
  });

  it('ranks by recent lookups and forgets keys nobody asks for any more', () => {
    const hot = new HotKeys();
    for (let i = 0; i < 5; i++) hot.seen(req('tx/list', 'page_size=10'));
    for (let i = 0; i < 3; i++) hot.seen(req('block/max'));
    hot.seen(req('tx/list/pending'));
    hot.seen(req('block/detail', 'h=5'));
    expect(hot.take(2).map((r) => r.key)).toEqual(['tx/list?page=1&page_size=10', 'block/max']);
    // Halved per head: pending (1 → 0.5 → 0.25 → gone), tx/list (5 → … ) outlives it.
    expect(hot.take(10).map((r) => r.key)).toEqual([
      'tx/list?page=1&page_size=10',
      'block/max',
      'tx/list/pending?page=1&page_size=20',
    ]);
    hot.take(10);
    expect(hot.take(10).map((r) => r.key)).toEqual(['tx/list?page=1&page_size=10', 'block/max']);
    // A key asked again comes back.
    for (let i = 0; i < 9; i++) hot.seen(req('tx/list/pending'));
    expect(hot.take(1).map((r) => r.key)).toEqual(['tx/list/pending?page=1&page_size=20']);
  });
});
