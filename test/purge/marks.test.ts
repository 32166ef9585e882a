/**
 * The purge marks and the judge they join: what a mark purges (hard, soft),
 * the cost while there is none, the bounds (cap folded into everything,
 * horizon), and a horizon that outlives every entry.
 */
import { describe, expect, it } from 'vitest';
import type { TagJudge } from '../../src/cache/entry.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { purgeHorizonMs } from '../../src/purge/build.js';
import { withPurges } from '../../src/purge/judge.js';
import { EVERYTHING, PurgeMarks } from '../../src/purge/marks.js';
import { softened } from '../../src/purge/second-tier.js';
import { fakeClock } from '../helpers/clock.js';

const chain = { bestHead: () => 100, finalHeight: () => 90 };

function entry(key: string, createdAt: number, freshMs = 60_000): CacheEntry {
  return {
    key,
    status: 200,
    body: Buffer.from('{}'),
    etag: 'W/"x"',
    createdAt,
    freshUntil: createdAt + freshMs,
    swrUntil: createdAt + freshMs + 5_000,
    sieUntil: createdAt + freshMs + 60_000,
    head: 100,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
  };
}

/** Marks whose entries' tags are listed by key, counting every derivation. */
function marksWith(tags: Record<string, string[]>, cap = 100, horizonMs = 3_600_000) {
  const clock = fakeClock(1_000_000);
  let derived = 0;
  const marks = new PurgeMarks({
    cap,
    horizonMs,
    clock: clock.now,
    tagsOf: (e) => {
      derived++;
      return tags[e.key] ?? [];
    },
  });
  return { marks, clock, derived: () => derived };
}

describe('the judge', () => {
  it('with no marks, and for entries newer than every mark, derives nothing and defers to the base judge', () => {
    const { marks, derived } = marksWith({ a: ['address:x'] });
    let asked = 0;
    const base: TagJudge = { stale: () => (asked++, false) };
    const judge = withPurges(marks, base);
    expect(judge.stale(entry('a', 999_000), chain)).toBe(false);
    expect(asked).toBe(1);
    marks.add({ target: 'address:x', soft: false, at: 1_000_000 });
    expect(judge.stale(entry('a', 1_000_001), chain)).toBe(false);
    expect(derived()).toBe(0);
    expect(asked).toBe(2);
    expect(judge.stale(entry('a', 1_000_000), chain)).toBe(true);
    expect(derived()).toBe(1);
    expect(withPurges(marks, null).stale(entry('a', 999_999), chain)).toBe(true);
  });

  it('a composed page made before any mark is made again', () => {
    const { marks } = marksWith({});
    marks.add({ target: 'token:NAX', soft: true, at: 1_000_000 });
    const page = { ...entry('pages/home', 999_000), composed: { parts: [], staleParts: [] } };
    expect(withPurges(marks, null).stale(page, chain)).toBe(true);
    expect(withPurges(marks, null).stale({ ...page, createdAt: 1_000_001 }, chain)).toBe(false);
  });
});

describe('verdicts', () => {
  it('by key, by tag and everything; hard before soft; only entries made at or before the mark', () => {
    const { marks } = marksWith({ 'address/info?address=x': ['address:x'], 'token/detail?token=T': ['token:T'] });
    marks.add({ target: 'address:x', soft: false, at: 1_000 });
    marks.add({ target: 'token/detail?token=T', soft: true, at: 2_000 });
    expect(marks.verdict(entry('address/info?address=x', 1_000))).toEqual({ mode: 'hard', at: 1_000 });
    expect(marks.verdict(entry('address/info?address=x', 1_001))).toBeNull();
    expect(marks.verdict(entry('token/detail?token=T', 1_500))).toEqual({ mode: 'soft', at: 2_000 });
    expect(marks.verdict(entry('block/max', 500))).toBeNull();
    marks.add({ target: EVERYTHING, soft: false, at: 1_800 });
    expect(marks.verdict(entry('block/max', 500))).toEqual({ mode: 'hard', at: 1_800 });
    expect(marks.verdict(entry('token/detail?token=T', 1_500))?.mode).toBe('hard');
    expect(marks.verdict(entry('token/detail?token=T', 1_900))?.mode).toBe('soft');
  });

  it('an entry a soft purge expired is left to its own timeline (served stale, not purged again)', () => {
    const { marks } = marksWith({});
    marks.add({ target: 'k', soft: true, at: 2_000 });
    const e = entry('k', 1_000);
    expect(marks.verdict(e)?.mode).toBe('soft');
    const s = softened(e, 2_000);
    expect(s.freshUntil).toBe(2_000);
    expect(s.swrUntil).toBe(e.swrUntil);
    expect(marks.verdict(s)).toBeNull();
    // Never promoted to its final TTL without a refetch.
    expect(softened({ ...e, finalAt: 42 }, 2_000).finalAt).toBeNull();
  });
});

describe('bounds', () => {
  it('beyond the cap the oldest marks fold into everything before their time: more purged, never less', () => {
    const { marks } = marksWith({ 'a?x=1': ['height:1'], 'b?x=2': ['height:9'] }, 3);
    for (let i = 1; i <= 10; i++) marks.add({ target: `height:${i}`, soft: false, at: 1_000 + i });
    expect(marks.size).toBe(3);
    // height:1 was folded away, yet what it purged still is.
    expect(marks.verdict(entry('a?x=1', 1_001))?.mode).toBe('hard');
    // So is everything made before the newest folded mark (height:7 at 1 007)...
    expect(marks.verdict(entry('untagged', 1_007))?.mode).toBe('hard');
    // ...but not after it, unless a held mark names it.
    expect(marks.verdict(entry('untagged', 1_008))).toBeNull();
    expect(marks.verdict(entry('b?x=2', 1_009))?.mode).toBe('hard');
  });

  it('a mark past the horizon is dropped at the next purge', () => {
    const { marks, clock } = marksWith({}, 100, 10_000);
    for (let i = 0; i < 50; i++) marks.add({ target: `k${i}`, soft: i % 2 === 0, at: clock.now() });
    marks.add({ target: EVERYTHING, soft: false, at: clock.now() });
    expect(marks.size).toBe(50);
    clock.advance(10_001);
    marks.add({ target: 'k-new', soft: false, at: clock.now() });
    expect(marks.size).toBe(1);
    expect(marks.verdict(entry('k1', 1_000_000 - 1))).toBeNull();
    expect(marks.newest).toBe(clock.now());
  });

  it('the horizon outlives every entry: twice its longest freshness and stale window', () => {
    const config = defaultConfig();
    const catalogue = buildCatalogue(config.policies);
    const horizon = purgeHorizonMs(catalogue, config.invalidation);
    const inv = config.invalidation;
    for (const { name, policy: p } of catalogue.all()) {
      const life = Math.max(p.ttlMs, p.finalTtlMs, inv.listMaxAgeMs * inv.maxAgeGrowth) + Math.max(p.swrMs, p.sieMs);
      expect(horizon, name).toBeGreaterThanOrEqual(2 * life);
    }
    expect(purgeHorizonMs(catalogue, { ...inv, maxAgeByEndpoint: { 'address/info': 10 * horizon } })).toBeGreaterThan(
      10 * horizon,
    );
  });
});
