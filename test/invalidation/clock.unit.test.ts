/** The tag clock alone: heights per tag, coverage, fallbacks, rewritten blocks, the byte bound. */
import { describe, expect, it } from 'vitest';
import { createEntry, entryState, type ChainHeights } from '../../src/cache/entry.js';
import { TagClock } from '../../src/invalidation/clock.js';
import type { EntryDeps } from '../../src/cache/types.js';
import { DAY_TAG, DEPLOYED, PENDING, tagOfAddress, tagOfTx } from '../../src/invalidation/tags.js';
import type { TouchedSet } from '../../src/chain/touched.js';

const chain = (head: number, final: number | null = null): ChainHeights => ({
  bestHead: () => head,
  finalHeight: () => final,
});
const entry = (head: number, deps: EntryDeps, createdAt = 0) =>
  createEntry({
    key: 'address/info?address=x',
    status: 200,
    body: Buffer.from('{}'),
    createdAt,
    ttlMs: 60_000,
    swrMs: 0,
    sieMs: 0,
    head,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
    deps,
  });
const set = (
  height: number,
  addresses: string[],
  complete = true,
  blockHash = `h${height}`,
  deployed: string[] = [],
): TouchedSet => ({ height, blockHash, addresses, contracts: deployed, deployed, day: null, tokens: [], complete });

describe('TagClock', () => {
  it('stales an entry only when a block above its head names one of its tags', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    c.start(10);
    c.block(set(10, ['a']));
    const e = entry(10, { tags: [tagOfAddress('a')], watchFinal: null });
    const other = entry(10, { tags: [tagOfAddress('b')], watchFinal: null });
    expect(c.stale(e, chain(10))).toBe(false);
    // Block 11 believed but not read yet: stale, whatever it names (never less fresh than the head rule).
    expect(c.stale(other, chain(11))).toBe(true);
    c.block(set(11, ['a']));
    expect(c.stale(e, chain(11))).toBe(true);
    expect(c.stale(other, chain(11))).toBe(false);
    expect(entryState(other, 1, chain(11), c)).toBe('fresh');
    expect(entryState(e, 1, chain(11), c)).toBe('error-only');
  });

  it('an incomplete block stales every tag-kept entry fetched below it', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    c.start(5);
    c.block(set(5, []));
    c.block(set(6, [], false));
    expect(c.stale(entry(5, { tags: [tagOfAddress('z')], watchFinal: null }), chain(6))).toBe(true);
    expect(c.stale(entry(6, { tags: [tagOfAddress('z')], watchFinal: null }), chain(6))).toBe(false);
  });

  it('a finality watch ends when the block is final, or when its hash changes', () => {
    let now = 100;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    c.start(20);
    c.block(set(20, []));
    const block = entry(20, { tags: [], watchFinal: 18 }, 50);
    expect(c.stale(block, chain(20, 17))).toBe(false);
    expect(c.stale(block, chain(21, 18))).toBe(true);
    // Block 18 read again with another hash: what was fetched about it before is stale, later fetches are not.
    c.block(set(18, [], true, 'first'));
    now = 200;
    c.block(set(18, [], true, 'second'));
    expect(c.stale(block, chain(20, 10))).toBe(true);
    expect(c.stale(entry(20, { tags: [], watchFinal: 18 }, 300), chain(20, 10))).toBe(false);
  });

  it('a height below the first block read is watched by the hash the window shows, none above what it covers', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    c.start(20);
    c.block(set(20, []));
    c.watch(18, 'w18');
    c.watch(20, 'other');
    c.watch(21, 'w21');
    expect([c.hashOf(18), c.hashOf(20), c.hashOf(21), c.covered]).toEqual(['w18', 'h20', undefined, 20]);
    // Known by it from now on: a set of another hash for it is a reorg.
    const block = entry(20, { tags: [], watchFinal: 18 }, -1);
    expect(c.stale(block, chain(20, 10))).toBe(false);
    c.block(set(18, [], true, 'replaced'));
    expect(c.stale(block, chain(20, 10))).toBe(true);
  });

  it('a rebase stales what was fetched at or above the new head, and owes the blocks above it again', () => {
    let now = 10;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    c.start(30);
    c.block(set(30, []));
    c.block(set(31, []));
    const at31 = entry(31, { tags: [tagOfAddress('q')], watchFinal: null }, 5);
    const at29 = entry(29, { tags: [tagOfAddress('q')], watchFinal: null }, 5);
    now = 20;
    c.rebase(30);
    expect(c.covered).toBe(30);
    expect(c.has(31)).toBe(false);
    expect(c.stale(at31, chain(30))).toBe(true);
    expect(c.stale(at29, chain(29))).toBe(false);
  });

  it(
    'a rebase lowers every height recorded above the new head: ' +
      'entries fetched there are fresh until a block names them again',
    () => {
      let now = 10;
      const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
      c.start(30);
      for (let h = 30; h <= 40; h++) c.block(set(h, h === 35 ? ['q'] : []));
      c.block(set(41, [], false));
      now = 20;
      c.rebase(32);
      // Fetched at the new head after the rebase: neither q's height (35) nor the incomplete block (41) is above it any
      // more.
      const fresh = entry(32, { tags: [tagOfAddress('q'), PENDING], watchFinal: null }, 25);
      expect(c.stale(fresh, chain(32))).toBe(false);
      // Fetched below the new head before the rebase: q was named above it, still stale.
      expect(c.stale(entry(31, { tags: [tagOfAddress('q')], watchFinal: null }, 5), chain(32))).toBe(true);
      // The blocks above it come again: one naming q stales it.
      c.block(set(33, ['q']));
      expect(c.stale(fresh, chain(33))).toBe(true);
    },
  );

  it('a rebase below the first block read lowers the horizon entries are judged from, judging none made before', () => {
    let now = 10;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    c.start(100);
    for (let h = 100; h <= 110; h++) c.block(set(h, []));
    expect(c.judgedFrom).toBe(99);
    const before = entry(34, { tags: [tagOfAddress('q')], watchFinal: null }, 5);
    now = 20;
    c.rebase(34);
    expect(c.judgedFrom).toBe(34);
    expect(c.covered).toBe(34);
    // Fetched at the new head after the rebase: judged, and fresh until a block names it.
    const after = entry(34, { tags: [tagOfAddress('q')], watchFinal: null }, 25);
    expect(c.stale(after, chain(34))).toBe(false);
    // Made before it at that height: this clock never judged it.
    expect(c.stale(before, chain(34))).toBe(true);
    expect(c.stale(entry(33, { tags: [tagOfAddress('q')], watchFinal: null }, 25), chain(34))).toBe(true);
    c.block(set(35, ['q']));
    expect(c.stale(after, chain(35))).toBe(true);
  });

  it(
    'a rewritten height stales what was fetched about it or at or above it until then, ' +
      'head-dependent entries included',
    () => {
      let now = 100;
      const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
      c.start(50);
      for (let h = 50; h <= 52; h++) c.block(set(h, []));
      const about = entry(52, { tags: [], watchFinal: 51 }, 90);
      const list = createEntry({
        key: 'block/list?page=1&page_size=20',
        status: 200,
        body: Buffer.from('{}'),
        createdAt: 90,
        ttlMs: 60_000,
        swrMs: 0,
        sieMs: 0,
        head: 52,
        headDependent: true,
        finalAt: null,
        negative: false,
        stamps: [],
      });
      const older = entry(50, { tags: [tagOfAddress('x')], watchFinal: null }, 90);
      expect(c.stale(about, chain(52))).toBe(false);
      expect(c.stale(list, chain(52))).toBe(false);
      c.rewrite(51, 'new');
      expect(c.hashOf(51)).toBe('new');
      expect(c.stale(about, chain(52))).toBe(true);
      expect(c.stale(list, chain(52))).toBe(true);
      expect(c.stale(older, chain(52))).toBe(false);
      now = 200;
      // The set read again does not mark it a second time: what was fetched since stays fresh.
      const since = entry(52, { tags: [], watchFinal: 51 }, 150);
      c.block(set(51, [], true, 'new'));
      expect(c.stale(since, chain(52))).toBe(false);
      // An answer about a block fetched before the proxy believed it is never fresh by tags.
      expect(c.stale(entry(50, { tags: [], watchFinal: 51 }, 190), chain(52))).toBe(true);
      // A reading that failed knows no hash: the height keeps the one it is known by, and a later change marks it.
      now = 300;
      c.block(set(51, [], false, ''));
      expect(c.hashOf(51)).toBe('new');
      const later = entry(52, { tags: [], watchFinal: 51 }, 250);
      expect(c.stale(later, chain(52))).toBe(false);
      c.block(set(51, [], true, 'newer'));
      expect(c.stale(later, chain(52))).toBe(true);
    },
  );

  it('a pending transaction is fresh until the block it leaves the pool with, or a set that does not say', () => {
    let now = 0;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    c.start(10);
    c.block({ ...set(10, []), left: [] });
    const tx = entry(10, { tags: [tagOfTx('aa')], watchFinal: null, clientMaxMs: 1000 }, 5);
    c.poolChanged();
    c.block({ ...set(11, ['x']), left: ['bb'] });
    expect(c.stale(tx, chain(11))).toBe(false);
    c.block({ ...set(12, []), left: ['aa'] });
    expect(c.stale(tx, chain(12))).toBe(true);
    // A replica on an older version says nothing of the pool: every pending transaction may have left.
    const again = entry(12, { tags: [tagOfTx('cc')], watchFinal: null, clientMaxMs: 1000 }, 5);
    expect(c.stale(again, chain(12))).toBe(false);
    c.block(set(13, []));
    expect(c.stale(again, chain(13))).toBe(true);
    // The pool unknown: its own TTL.
    const later = entry(13, { tags: [tagOfTx('dd')], watchFinal: null, clientMaxMs: 1000 }, 10);
    c.poolUnknown();
    now = 500;
    expect(c.stale(later, chain(13))).toBe(false);
    now = 1010;
    expect(c.stale(later, chain(13))).toBe(true);
  });

  it('stays within its byte budget; forgotten tags stale what they could have named', () => {
    const c = new TagClock({ maxBytes: 2000, clock: () => 0 });
    c.start(1);
    for (let h = 1; h <= 100; h++) c.block(set(h, [`addr${h}`]));
    expect(c.bytes).toBeLessThanOrEqual(2000);
    expect(c.tags).toBeLessThan(100);
    // addr1 was forgotten: an entry fetched before its last block cannot be judged, so it is stale.
    expect(c.stale(entry(1, { tags: [tagOfAddress('nobody')], watchFinal: null }), chain(100))).toBe(true);
    expect(c.stale(entry(100, { tags: [tagOfAddress('nobody')], watchFinal: null }), chain(100))).toBe(false);
  });

  it('the deployment tag moves only with blocks that deploy, calls and transfers do not move it', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    c.start(40);
    c.block(set(40, []));
    const list = entry(40, { tags: [DEPLOYED], watchFinal: null });
    c.block({ ...set(41, ['caller']), contracts: ['n1called'], tokens: ['NAX'] });
    expect(c.stale(list, chain(41))).toBe(false);
    c.block(set(42, ['creator'], true, 'h42', ['n2new']));
    expect(c.stale(list, chain(42))).toBe(true);
    // Fail safe: an incomplete block stales it like any tag-kept entry.
    const later = entry(42, { tags: [DEPLOYED], watchFinal: null });
    c.block(set(43, [], false));
    expect(c.stale(later, chain(43))).toBe(true);
  });

  it('the pending pool: stale after any block, and when the poll saw it change after the entry was made', () => {
    let now = 1000;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    c.start(50);
    c.block(set(50, []));
    const pool = entry(50, { tags: [PENDING], watchFinal: null }, 900);
    expect(c.stale(pool, chain(50))).toBe(false);
    c.poolChanged();
    expect(c.stale(pool, chain(50))).toBe(true);
    const after = entry(50, { tags: [PENDING], watchFinal: null }, 1001);
    expect(c.stale(after, chain(50))).toBe(false);
    now = 2000;
    c.block(set(51, []));
    expect(c.stale(after, chain(51))).toBe(true);
  });

  it(
    'a pool the poll cannot read: pending entries keep their own TTL; ' +
      'read again, what was made until then is stale, twice',
    () => {
      let now = 1000;
      const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
      c.start(50);
      c.block(set(50, []));
      const pool = entry(50, { tags: [PENDING], watchFinal: null, clientMaxMs: 1000 }, 900);
      const address = entry(50, { tags: [tagOfAddress('a')], watchFinal: null, clientMaxMs: 1000 }, 900);
      c.poolUnknown();
      expect(c.stale(pool, chain(50))).toBe(false);
      now = 1900;
      expect(c.stale(pool, chain(50))).toBe(true);
      // Only what depends on the pool.
      expect(c.stale(address, chain(50))).toBe(false);
      const during = entry(50, { tags: [PENDING], watchFinal: null, clientMaxMs: 1000 }, 1950);
      expect(c.stale(during, chain(50))).toBe(false);
      now = 2000;
      c.poolKnown();
      expect(c.stale(during, chain(50))).toBe(true);
      const between = entry(50, { tags: [PENDING], watchFinal: null, clientMaxMs: 1000 }, 2050);
      now = 2100;
      c.poolKnown();
      expect(c.stale(between, chain(50))).toBe(true);
      const after = entry(50, { tags: [PENDING], watchFinal: null, clientMaxMs: 1000 }, 2150);
      now = 9000;
      c.poolKnown();
      expect(c.stale(after, chain(50))).toBe(false);
    },
  );

  it('a stage end watch: fresh below the height, stale once the best head reaches it, whatever the sets', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    c.start(60);
    c.block(set(60, []));
    const summary = entry(60, { tags: [], watchFinal: null, watchHead: 63 });
    c.block(set(61, [], false));
    expect(c.stale(summary, chain(62))).toBe(false);
    expect(c.stale(summary, chain(63))).toBe(true);
    expect(
      c.stale(entry(60, { tags: [], watchFinal: null, watchHead: 63 }), {
        bestHead: () => null,
        finalHeight: () => null,
      }),
    ).toBe(true);
  });

  it(
    'the day tag moves with the first block of a new day, ' +
      'or a block whose day is unknown; an incomplete block stales it too',
    () => {
      const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
      c.start(70);
      c.block({ ...set(70, []), day: 100 });
      const series = entry(70, { tags: [DAY_TAG], watchFinal: null });
      c.block({ ...set(71, []), day: 100 });
      expect(c.stale(series, chain(71))).toBe(false);
      c.block({ ...set(72, []), day: 101 });
      expect(c.stale(series, chain(72))).toBe(true);
      const next = entry(72, { tags: [DAY_TAG], watchFinal: null });
      c.block({ ...set(73, []), day: null });
      expect(c.stale(next, chain(73))).toBe(true);
      const later = entry(73, { tags: [DAY_TAG], watchFinal: null });
      c.block(set(74, [], false));
      expect(c.stale(later, chain(74))).toBe(true);
    },
  );
});

describe('TagClock: entries from before this replica', () => {
  const tagged = (head: number, tag = 'a') => entry(head, { tags: [tagOfAddress(tag)], watchFinal: null });
  const record = (from: number, to: number, named: Record<number, string[]> = {}): TouchedSet[] =>
    Array.from({ length: to - from + 1 }, (_, i) => set(from + i, named[from + i] ?? []));

  it('never fresh by default: before any set, and below the first block, a tag-kept entry is stale (counted)', () => {
    const guarded: string[] = [];
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0, onGuarded: (r) => guarded.push(r) });
    expect(c.stale(tagged(100), chain(100))).toBe(true);
    c.start(101);
    expect(c.judgedFrom).toBe(100);
    c.block(set(101, []));
    expect(c.stale(tagged(100), chain(101))).toBe(false);
    expect(c.stale(tagged(99), chain(101))).toBe(true);
    expect(guarded).toEqual(['joined-late', 'joined-late']);
  });

  it('joining the fleet record: entries are judged by it as far back as it goes without a gap', () => {
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    // 90..91, a gap at 92, then 93..100; block 97 named `a`.
    const sets = [...record(90, 91), ...record(93, 100, { 97: ['a'] })];
    expect(c.join(sets, 101)).toBe(true);
    expect(c.covered).toBe(100);
    expect(c.judgedFrom).toBe(92);
    c.start(101); // the reader's first head: already covered by the record
    expect(c.covered).toBe(100);
    c.block(set(101, []));
    expect(c.stale(tagged(96), chain(101))).toBe(true);
    expect(c.stale(tagged(96, 'b'), chain(101))).toBe(false);
    expect(c.stale(tagged(97), chain(101))).toBe(false);
    expect(c.stale(tagged(91, 'b'), chain(101))).toBe(true);
  });

  it(
    'a record too far behind the head is not used; ' + 'a started clock joins only a record that meets what it knows',
    () => {
      const c = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
      expect(c.join(record(10, 20), 200)).toBe(false);
      c.start(200);
      c.block(set(200, []));
      expect(c.judgedFrom).toBe(199);
      expect(c.join(record(150, 197), 200)).toBe(false);
      expect(c.stale(tagged(198, 'b'), chain(200))).toBe(true);
      expect(c.join(record(150, 199, { 180: ['a'] }), 200)).toBe(true);
      expect(c.judgedFrom).toBe(149);
      expect(c.stale(tagged(170), chain(200))).toBe(true);
      expect(c.stale(tagged(170, 'b'), chain(200))).toBe(false);
      expect(c.stale(tagged(190), chain(200))).toBe(false);
    },
  );

  it('a record that shows a height read with two hashes stales what was fetched about it before', () => {
    let now = 10;
    const c = new TagClock({ maxBytes: 1 << 20, clock: () => now });
    const watched = entry(50, { tags: [], watchFinal: 48 }, 5);
    now = 20;
    expect(c.join([...record(45, 47), set(48, [], true, 'old'), set(48, [], true, 'new'), ...record(49, 50)], 50)).toBe(
      true,
    );
    expect(c.stale(watched, chain(50, 40))).toBe(true);
  });
});
