import { describe, expect, it } from 'vitest';
import { HotBoard, isHeadPage } from '../../src/refresh/board.js';
import { tagOfAddress } from '../../src/invalidation/tags.js';
import { entryOf, req } from './kit.js';

const ADDRESS = 'n1JmhE82GNjdZPNZr6dgUuSfzy2WRwmZ16n';
const OTHER = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';
const info = (a: string) => req('address/info', `address=${a}`);
const keys = (rs: ReadonlyArray<{ key: string }>) => rs.map((r) => r.key);

/** A lookup of `r` that finds its entry (kept by `tags`) invalidated, as the resolver and the tag clock report it. */
function invalidatedLookup(board: HotBoard, a: string, times = 1): void {
  for (let i = 0; i < times; i++) {
    board.seen(info(a));
    board.invalidated(entryOf(info(a), [tagOfAddress(a)]));
  }
}

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
    const hot = new HotBoard();
    for (let i = 0; i < 5; i++) hot.seen(req('tx/list', 'page_size=10'));
    for (let i = 0; i < 3; i++) hot.seen(req('block/max'));
    hot.seen(req('tx/list/pending'));
    hot.seen(req('block/detail', 'h=5'));
    expect(keys(hot.headPages(2))).toEqual(['tx/list?page=1&page_size=10', 'block/max']);
    // Halved per head: pending (1 → 0.5 → 0.25 → gone), tx/list (5 → … ) outlives it.
    expect(keys(hot.headPages(10))).toEqual([
      'tx/list?page=1&page_size=10',
      'block/max',
      'tx/list/pending?page=1&page_size=20',
    ]);
    hot.headPages(10);
    expect(keys(hot.headPages(10))).toEqual(['tx/list?page=1&page_size=10', 'block/max']);
    // A key asked again comes back.
    for (let i = 0; i < 9; i++) hot.seen(req('tx/list/pending'));
    expect(keys(hot.headPages(1))).toEqual(['tx/list/pending?page=1&page_size=20']);
  });

  it('keeps the request a lookup made, not a key to parse again', () => {
    const hot = new HotBoard();
    const r = req('tx/list', 'page_size=10');
    hot.seen(r);
    expect(hot.headPages(1)[0]).toBe(r);
    invalidatedLookup(hot, ADDRESS);
    expect(hot.named(new Set([tagOfAddress(ADDRESS)]), 1)[0]?.endpoint.name).toBe('address/info');
  });
});

describe('invalidated tag-kept entries', () => {
  it('a block naming one of its tags picks the hottest of them; a block naming none picks nothing', () => {
    const hot = new HotBoard();
    invalidatedLookup(hot, ADDRESS, 3);
    invalidatedLookup(hot, OTHER, 1);
    const both = new Set([tagOfAddress(ADDRESS), tagOfAddress(OTHER)]);
    expect(keys(hot.named(both, 1))).toEqual([info(ADDRESS).key]);
    expect(keys(hot.named(new Set(['address:nobody']), 8))).toEqual([]);
    // Halved twice (1 → 0.5 → 0.25): still tracked; once more and it is forgotten.
    expect(keys(hot.named(new Set([tagOfAddress(OTHER)]), 8))).toEqual([info(OTHER).key]);
    expect(keys(hot.named(new Set([tagOfAddress(OTHER)]), 8))).toEqual([]);
  });

  it('scores halve on every touched set and are forgotten; head pages age only with heads', () => {
    const hot = new HotBoard();
    invalidatedLookup(hot, ADDRESS, 1);
    hot.seen(req('block/max'));
    const named = new Set([tagOfAddress(ADDRESS)]);
    hot.named(new Set(), 8); // 1 → 0.5
    hot.named(new Set(), 8); // → 0.25
    hot.named(new Set(), 8); // → gone
    expect(hot.named(named, 8)).toEqual([]);
    expect(keys(hot.headPages(8))).toEqual(['block/max']);
    // And the other way round: heads do not age invalidated entries.
    invalidatedLookup(hot, ADDRESS, 1);
    for (let i = 0; i < 5; i++) hot.headPages(8);
    expect(keys(hot.named(named, 8))).toEqual([info(ADDRESS).key]);
  });

  it('counts a report only within a lookup of the same key', () => {
    const hot = new HotBoard();
    // The tag clock judging an entry outside any lookup of it (another key's lookup was last).
    hot.seen(info(OTHER));
    hot.invalidated(entryOf(info(ADDRESS), [tagOfAddress(ADDRESS)]));
    expect(hot.size).toBe(0);
    hot.seen(info(ADDRESS));
    hot.invalidated(entryOf(info(ADDRESS), [tagOfAddress(ADDRESS)]));
    expect(hot.size).toBe(1);
  });

  it('leaves out composed pages, entries without tags and head pages (refreshed on every head already)', () => {
    const hot = new HotBoard();
    const page = info(ADDRESS);
    hot.seen(page);
    hot.invalidated(entryOf(page, [tagOfAddress(ADDRESS)], true));
    hot.invalidated(entryOf(page, []));
    const pending = req('tx/list/pending');
    hot.seen(pending);
    hot.invalidated(entryOf(pending, ['pending']));
    expect(hot.named(new Set([tagOfAddress(ADDRESS), 'pending']), 8)).toEqual([]);
    expect(keys(hot.headPages(8))).toEqual([pending.key]);
  });
});
