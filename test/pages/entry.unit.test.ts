/**
 * A composed page as a cache entry: freshness, head dependence and tags
 * derived from its parts and judged by the entries' own predicate
 * (`entryState`, with the tag clock); its ETag is its data without stamps.
 */
import { describe, expect, it } from 'vitest';
import { createEntry, entryState, type ChainHeights } from '../../src/cache/entry.js';
import { renderBody } from '../../src/cache/render.js';
import type { CacheEntry } from '../../src/cache/types.js';
import type { Stamp } from '../../src/transform/stamps.js';
import { TagClock } from '../../src/invalidation/clock.js';
import type { EntryDeps } from '../../src/cache/types.js';
import { tagOfAddress } from '../../src/invalidation/tags.js';
import type { TouchedSet } from '../../src/chain/touched.js';
import { PAGE_KEPT_MS } from '../../src/cache/lifetime.js';
import { pageEntry, type PageParts } from '../../src/pages/entry.js';

const chain = (head: number, final: number | null = null): ChainHeights => ({
  bestHead: () => head,
  finalHeight: () => final,
});
const part = (head: number | null, deps?: EntryDeps, tagHeader?: string): CacheEntry =>
  createEntry({
    key: 'address/info?address=x',
    status: 200,
    body: Buffer.from('{}'),
    createdAt: 0,
    ttlMs: 60_000,
    swrMs: 0,
    sieMs: 0,
    head,
    headDependent: deps === undefined,
    finalAt: null,
    negative: false,
    stamps: [],
    ...(deps ? { deps } : {}),
    ...(tagHeader ? { tagHeader } : {}),
  });
const set = (height: number, addresses: string[]): TouchedSet => ({
  height,
  blockHash: `h${height}`,
  addresses,
  contracts: [],
  tokens: [],
  deployed: [],
  day: null,
  complete: true,
});

const DATA = '{"code":0,"msg":"success","data":{"a":{"server_timestamp":1000,"x":1}}';
const STAMP: Stamp = { start: DATA.indexOf('1000'), end: DATA.indexOf('1000') + 4, kind: 'now', base: 0 };

function page(p: Partial<PageParts> = {}): CacheEntry {
  return pageEntry({
    key: 'pages/x',
    data: Buffer.from(DATA),
    stamps: [STAMP],
    meta: Buffer.from(',"meta":{"composed_at":5000}}'),
    now: 5000,
    limits: [{ kind: 'part', until: 6000 }],
    head: 10,
    headDependent: true,
    immutable: false,
    entries: [],
    composed: { parts: [], staleParts: [] },
    ...p,
  });
}

describe('a composed page as an entry', () => {
  it(
    'fresh until the first part expires, and, when head-relative, ' +
      'until the head moves; kept (not served) a minute past',
    () => {
      const e = page();
      expect(entryState(e, 5999, chain(10))).toBe('fresh');
      expect(entryState(e, 6000, chain(10))).toBe('error-only');
      expect(entryState(e, 5001, chain(11))).toBe('error-only');
      expect(entryState(page({ headDependent: false }), 5001, chain(11))).toBe('fresh');
      expect(e.sieUntil).toBe(6000 + PAGE_KEPT_MS);
    },
  );

  it('is stamped at composition time, its stamps where the rendered digits are', () => {
    const e = page({ now: 12_345 });
    expect(JSON.parse(e.body.toString()).data.a.server_timestamp).toBe(12_345);
    expect(e.body.toString('latin1', e.stamps[0]!.start, e.stamps[0]!.end)).toBe('12345');
    expect(JSON.parse(renderBody(e, 99_999_999).toString()).data.a.server_timestamp).toBe(99_999_999);
  });

  it(
    'the ETag is the data without stamps: the same across recompositions, ' +
      'meta and stamps aside; new with new data',
    () => {
      const a = page();
      expect(a.etag).toMatch(/^W\/"p[\w-]+"$/);
      expect(page({ now: 9000, meta: Buffer.from(',"meta":{"composed_at":9000}}'), head: 11 }).etag).toBe(a.etag);
      const other = DATA.replace('"x":1', '"x":2');
      expect(page({ data: Buffer.from(other) }).etag).not.toBe(a.etag);
    },
  );

  it("carries the union of its parts' tags, the lowest finality watch and the oldest tag-kept head", () => {
    const e = page({
      headDependent: false,
      entries: [
        part(12, { tags: [tagOfAddress('a')], watchFinal: 30 }, 'address:a'),
        part(11, { tags: [tagOfAddress('b'), tagOfAddress('a')], watchFinal: 20 }, 'address:b,address:a'),
        part(3),
      ],
    });
    expect(e.deps).toEqual({ tags: [tagOfAddress('a'), tagOfAddress('b')], watchFinal: 20 });
    expect(e.head).toBe(11);
    expect(e.tagHeader).toBe('address:a,address:b');
    expect(page({ headDependent: false }).deps).toBeUndefined();
    expect(page({ immutable: true }).immutable).toBe(true);
    expect(page().immutable).toBeUndefined();
  });

  it('judged by the tag clock like an entry: stale when a block names a part’s tag, not otherwise', () => {
    const tags = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    tags.start(10);
    tags.block(set(10, []));
    const e = page({
      headDependent: false,
      limits: [{ kind: 'part', until: 60_000 }],
      entries: [part(10, { tags: [tagOfAddress('a')], watchFinal: null })],
    });
    tags.block(set(11, ['b']));
    expect(entryState(e, 5001, chain(11), tags)).toBe('fresh');
    tags.block(set(12, ['a']));
    expect(entryState(e, 5001, chain(12), tags)).toBe('error-only');
    const watching = page({
      headDependent: false,
      limits: [{ kind: 'part', until: 60_000 }],
      entries: [part(11, { tags: [], watchFinal: 11 })],
    });
    expect(entryState(watching, 5001, chain(12, 10), tags)).toBe('fresh');
    expect(entryState(watching, 5001, chain(12, 11), tags)).toBe('error-only');
    // A part fetched below the block it watches (before the proxy believed that block) is not trusted.
    const early = page({
      headDependent: false,
      limits: [{ kind: 'part', until: 60_000 }],
      entries: [part(10, { tags: [], watchFinal: 11 })],
    });
    expect(entryState(early, 5001, chain(12, 10), tags)).toBe('error-only');
    const stage = page({
      headDependent: false,
      limits: [{ kind: 'part', until: 60_000 }],
      entries: [
        part(10, { tags: [], watchFinal: null, watchHead: 14 }),
        part(10, { tags: [], watchFinal: null, watchHead: 13 }),
      ],
    });
    expect(stage.deps?.watchHead).toBe(13);
    expect(entryState(stage, 5001, chain(12), tags)).toBe('fresh');
    expect(entryState(stage, 5001, chain(13), tags)).toBe('error-only');
  });
});
