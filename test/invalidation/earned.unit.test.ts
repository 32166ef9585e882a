/** The earned bound's pure rules: what a refetch says, and the key's next bound. */
import { describe, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { nextBound } from '../../src/cache/lifetime.js';
import { endedBy, evidenceOf } from '../../src/invalidation/earned.js';

const entry = (body: string, createdAt: number, ttlMs: number, tagged = true): CacheEntry =>
  createEntry({
    key: 'address/info?address=a',
    status: 200,
    body: Buffer.from(body),
    createdAt,
    ttlMs,
    swrMs: 0,
    sieMs: 0,
    head: 1,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
    ...(tagged ? { deps: { tags: ['address:a'], watchFinal: null } } : {}),
  });

describe('evidenceOf', () => {
  const before = entry('{"balance":"1"}', 0, 60_000);
  it('same content at the bound: same', () => {
    expect(evidenceOf(before, entry('{"balance":"1"}', 60_500, 60_000), 60_500, false)).toBe('same');
  });
  it('changed content at the bound, no block named it: unnamed-change', () => {
    expect(evidenceOf(before, entry('{"balance":"2"}', 60_500, 60_000), 60_500, false)).toBe('unnamed-change');
  });
  it('a named tag, a refetch before the bound, or an entry not kept by tags: none', () => {
    expect(evidenceOf(before, entry('{"balance":"2"}', 60_500, 60_000), 60_500, true)).toBe('none');
    expect(evidenceOf(before, entry('{"balance":"1"}', 30_000, 60_000), 30_000, false)).toBe('none');
    expect(
      evidenceOf(entry('{"balance":"1"}', 0, 60_000, false), entry('{"balance":"1"}', 60_500, 60_000), 60_500, false),
    ).toBe('none');
  });
});

describe('nextBound', () => {
  it('doubles on same up to base × growth, resets on an unnamed change, keeps otherwise', () => {
    expect(nextBound(60_000, 60_000, 16, 'same')).toBe(120_000);
    expect(nextBound(600_000, 60_000, 16, 'same')).toBe(960_000);
    expect(nextBound(960_000, 60_000, 16, 'same')).toBe(960_000);
    expect(nextBound(960_000, 60_000, 16, 'unnamed-change')).toBe(60_000);
    expect(nextBound(480_000, 60_000, 16, 'none')).toBe(480_000);
    expect(nextBound(60_000, 60_000, 1, 'same')).toBe(60_000);
    // A bound from a longer setting than today's is brought within the cap; never below the base.
    expect(nextBound(5_000_000, 60_000, 16, 'none')).toBe(960_000);
    expect(nextBound(1_000, 60_000, 16, 'none')).toBe(60_000);
  });
});

describe('endedBy', () => {
  it('says what ended the entry an unchanged answer replaced', () => {
    const kept = entry('{}', 0, 60_000);
    expect(endedBy(kept, 1000, true, false)).toBe('named');
    expect(endedBy(kept, 1000, false, true)).toBe('head');
    expect(endedBy(kept, 60_000, false, false)).toBe('bound');
    expect(endedBy(entry('{}', 0, 5000, false), 5000, false, false)).toBe('ttl');
    expect(endedBy(kept, 1000, false, false)).toBe('other');
  });
});
