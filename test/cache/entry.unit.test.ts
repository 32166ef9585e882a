import { describe, expect, it } from 'vitest';
import { computeEtag, createEntry, entryState, takesOver, type EntryParams } from '../../src/cache/entry.js';
import { promoteIfFinal } from '../../src/cache/lifetime.js';

const T0 = 1_700_000_000_000;

function chain(best: number | null = null, final: number | null = null) {
  return { bestHead: () => best, finalHeight: () => final };
}

function params(patch: Partial<EntryParams> = {}): EntryParams {
  return {
    key: 'tx/list?page=1&page_size=20',
    status: 200,
    body: Buffer.from('{"code":0,"msg":"success","data":{"server_timestamp":1}}'),
    createdAt: T0,
    ttlMs: 3000,
    swrMs: 2000,
    sieMs: 60_000,
    head: 100,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
    ...patch,
  };
}

describe('createEntry / computeEtag', () => {
  it('lays out the windows after createdAt', () => {
    const e = createEntry(params());
    expect(e.freshUntil).toBe(T0 + 3000);
    expect(e.swrUntil).toBe(T0 + 5000);
    expect(e.sieUntil).toBe(T0 + 63_000);
    expect(e.etag).toBe(computeEtag(e.body, e.stamps));
  });

  it('never lets sieUntil fall below swrUntil, and clamps negative/NaN durations', () => {
    const e = createEntry(params({ swrMs: 5000, sieMs: 1000 }));
    expect(e.sieUntil).toBe(e.swrUntil);
    const z = createEntry(params({ ttlMs: -5, swrMs: Number.NaN, sieMs: -1 }));
    expect([z.freshUntil, z.swrUntil, z.sieUntil]).toEqual([T0, T0, T0]);
  });

  it('gives negative entries no stale windows', () => {
    const e = createEntry(params({ negative: true, status: 404, ttlMs: 1000 }));
    expect([e.freshUntil, e.swrUntil, e.sieUntil]).toEqual([T0 + 1000, T0 + 1000, T0 + 1000]);
  });

  it('makes weak, stable, content-dependent ETags', () => {
    const a = computeEtag(Buffer.from('{"a":1}'), []);
    expect(a).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(computeEtag(Buffer.from('{"a":1}'), [])).toBe(a);
    expect(computeEtag(Buffer.from('{"a":2}'), [])).not.toBe(a);
  });
});

describe('entryState', () => {
  it('walks fresh → stale → error-only → dead', () => {
    const e = createEntry(params());
    const c = chain(100);
    expect(entryState(e, T0, c)).toBe('fresh');
    expect(entryState(e, T0 + 2999, c)).toBe('fresh');
    expect(entryState(e, T0 + 3000, c)).toBe('stale');
    expect(entryState(e, T0 + 4999, c)).toBe('stale');
    expect(entryState(e, T0 + 5000, c)).toBe('error-only');
    expect(entryState(e, T0 + 62_999, c)).toBe('error-only');
    expect(entryState(e, T0 + 63_000, c)).toBe('dead');
  });

  it('head invalidation: a head-dependent entry is error-only once the best head moves past its head', () => {
    const e = createEntry(params({ headDependent: true, head: 100 }));
    expect(entryState(e, T0 + 10, chain(100))).toBe('fresh');
    expect(entryState(e, T0 + 10, chain(null))).toBe('fresh');
    expect(entryState(e, T0 + 10, chain(99))).toBe('fresh');
    expect(entryState(e, T0 + 10, chain(101))).toBe('error-only');
    expect(entryState(e, T0 + 4000, chain(101))).toBe('error-only');
    expect(entryState(e, T0 + 63_000, chain(101))).toBe('dead');
  });

  it('ignores the head for entries that are not head-dependent or have no head', () => {
    expect(entryState(createEntry(params({ headDependent: false })), T0, chain(1e9))).toBe('fresh');
    expect(entryState(createEntry(params({ headDependent: true, head: null })), T0, chain(1e9))).toBe('fresh');
  });

  it('never serves a negative entry as stale or error-only', () => {
    const e = {
      ...createEntry(params({ negative: true, status: 404, ttlMs: 1000 })),
      swrUntil: T0 + 5000,
      sieUntil: T0 + 9000,
    };
    expect(entryState(e, T0, chain())).toBe('fresh');
    expect(entryState(e, T0 + 1000, chain())).toBe('dead');
    expect(entryState(e, T0 + 6000, chain())).toBe('dead');
  });
});

describe('promoteIfFinal', () => {
  const DAY = 86_400_000;
  const pending = () =>
    createEntry(params({ headDependent: true, head: 100, finalAt: 95, ttlMs: 5000, swrMs: 5000, sieMs: DAY }));

  it('does nothing before the block is final, or without finalAt', () => {
    expect(promoteIfFinal(pending(), DAY, T0 + 1000, 94)).toBeNull();
    expect(promoteIfFinal(pending(), DAY, T0 + 1000, null)).toBeNull();
    expect(promoteIfFinal(createEntry(params()), DAY, T0 + 1000, 1e9)).toBeNull();
    expect(promoteIfFinal({ ...pending(), negative: true }, DAY, T0 + 1000, 1e9)).toBeNull();
  });

  it('extends an entry whose block became final, keeping content and window lengths', () => {
    const e = pending();
    const now = T0 + 7000; // stale already
    expect(entryState(e, now, chain(100))).toBe('stale');
    const p = promoteIfFinal(e, DAY, now, 95);
    expect(p).not.toBeNull();
    if (p === null) return;
    expect(p.freshUntil).toBe(now + DAY);
    expect(p.swrUntil).toBe(now + DAY + 5000);
    expect(p.sieUntil).toBe(now + DAY + DAY);
    expect(p.finalAt).toBeNull();
    expect(p.headDependent).toBe(false);
    expect([p.body, p.etag, p.createdAt, p.stamps, p.key]).toEqual([e.body, e.etag, e.createdAt, e.stamps, e.key]);
    // Final content no longer moves with the head.
    expect(entryState(p, now + DAY - 1, chain(10_000))).toBe('fresh');
    // Promoted once.
    expect(promoteIfFinal(p, DAY, now + 10, 95)).toBeNull();
    // The original is untouched.
    expect(e.finalAt).toBe(95);
  });

  it('rescues a head-invalidated entry whose block is now final', () => {
    const e = pending();
    expect(entryState(e, T0 + 10, chain(200, 95))).toBe('error-only');
    const p = promoteIfFinal(e, DAY, T0 + 10, 95);
    expect(p !== null && entryState(p, T0 + 10, chain(200, 95))).toBe('fresh');
  });

  it('does not shorten an entry already fresh at least that long', () => {
    const e = createEntry(params({ finalAt: 95, ttlMs: 2 * DAY }));
    expect(promoteIfFinal(e, DAY, T0, 95)).toBeNull();
  });
});

describe('takesOver', () => {
  it("another replica's entry replaces only an older copy, or none", () => {
    const own = createEntry(params());
    expect(takesOver(undefined, own)).toBe(true);
    expect(takesOver(own, createEntry(params({ createdAt: T0 + 1 })))).toBe(true);
    expect(takesOver(own, createEntry(params()))).toBe(false);
    expect(takesOver(own, createEntry(params({ createdAt: T0 - 1 })))).toBe(false);
  });
});
