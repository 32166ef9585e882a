/** The lifetime module's rules, on a fake clock: every window an entry gets is laid out or moved here. */
import { describe, expect, it } from 'vitest';
import { createEntry, type EntryParams } from '../../src/cache/entry.js';
import {
  boundOf,
  earned,
  expiredAt,
  FAILED_PART_TTL_MS,
  isFinalContent,
  keptBy,
  PAGE_KEPT_MS,
  pageWindows,
  renewed,
  stretched,
  termsOfEntry,
  windowsOf,
} from '../../src/cache/lifetime.js';
import type { CacheEntry, EntryDeps } from '../../src/cache/types.js';
import type { Classification, EndpointPolicy } from '../../src/endpoints/types.js';
import { fakeClock } from '../helpers/clock.js';

const DAY = 86_400_000;
const POLICY: EndpointPolicy = {
  ttlMs: 5000,
  finalTtlMs: DAY,
  volatileTtlMs: 5000,
  swrMs: 5000,
  sieMs: DAY,
  negativeTtlMs: 1000,
  invalidateOnHead: false,
};

function entry(createdAt: number, patch: Partial<EntryParams> = {}): CacheEntry {
  return createEntry({
    key: 'block/detail?h=90',
    status: 200,
    body: Buffer.from('{"code":0,"msg":"success","data":{"height":90}}'),
    createdAt,
    ttlMs: 3000,
    swrMs: 2000,
    sieMs: 60_000,
    head: 100,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
    ...patch,
  });
}

const cls = (patch: Partial<Classification> = {}): Classification => ({
  cacheable: true,
  negative: false,
  ttlMs: 5000,
  swrMs: 5000,
  sieMs: DAY,
  finalAt: null,
  headDependent: false,
  observedHead: null,
  observedFinal: null,
  ...patch,
});

describe('creation', () => {
  it('lays the windows out from the durations, a negative entry without stale windows', () => {
    const c = fakeClock();
    const t = c.now();
    expect(windowsOf(t, { ttlMs: 3000, swrMs: 2000, sieMs: 60_000, negative: false })).toEqual({
      createdAt: t,
      freshUntil: t + 3000,
      swrUntil: t + 5000,
      sieUntil: t + 63_000,
    });
    expect(windowsOf(t, { ttlMs: 1000, swrMs: 2000, sieMs: 60_000, negative: true })).toEqual({
      createdAt: t,
      freshUntil: t + 1000,
      swrUntil: t + 1000,
      sieUntil: t + 1000,
    });
    expect(boundOf(entry(t))).toBe(3000);
  });
});

describe('renewal (the head entry shown again by a probe)', () => {
  it('starts every window again from now, same lengths; nothing when time has not moved', () => {
    const c = fakeClock();
    const e = entry(c.now());
    expect(renewed(e, c.now())).toBeNull();
    c.advance(1500);
    const r = renewed(e, c.now())!;
    expect([r.createdAt, r.freshUntil, r.swrUntil, r.sieUntil]).toEqual([
      c.now(),
      c.now() + 3000,
      c.now() + 5000,
      c.now() + 63_000,
    ]);
    expect(r.etag).toBe(e.etag);
  });
});

describe('stretching (the earned bound)', () => {
  it('makes an entry fresh for a longer bound from its creation, stale windows keeping their lengths', () => {
    const t = fakeClock().now();
    const e = entry(t);
    const s = stretched(e, 10_000);
    expect([s.createdAt, s.freshUntil, s.swrUntil, s.sieUntil]).toEqual([t, t + 10_000, t + 12_000, t + 70_000]);
    expect(stretched(e, 2000)).toBe(e);
  });

  it('earned: the same content doubles the bound, up to growth times the base; an unnamed change resets it', () => {
    const deps: EntryDeps = { tags: ['address:a'], watchFinal: null };
    const before = entry(0, { ttlMs: 60_000, deps });
    const after = entry(61_000, { ttlMs: 60_000, deps });
    expect(boundOf(earned(before, after, 16, 'same'))).toBe(120_000);
    expect(boundOf(earned(before, after, 1, 'same'))).toBe(60_000);
    expect(boundOf(earned(before, after, 16, 'unnamed-change'))).toBe(60_000);
    const grown = entry(0, { ttlMs: 480_000, deps });
    expect(boundOf(earned(grown, after, 16, 'none'))).toBe(480_000);
  });
});

describe('a soft purge', () => {
  it('expires the entry at the purge, keeps its stale windows, and drops its promotion', () => {
    const t = fakeClock().now();
    const e = expiredAt(entry(t, { finalAt: 90 }), t + 1000);
    expect([e.freshUntil, e.swrUntil, e.finalAt]).toEqual([t + 1000, t + 5000, null]);
    expect(expiredAt(entry(t), t + 10_000).freshUntil).toBe(t + 3000);
  });
});

describe('the one "is final" test', () => {
  it('holds for a final classification and for an entry kept the final TTL, promoted or not', () => {
    const c = fakeClock();
    expect(isFinalContent(cls({ ttlMs: DAY }), POLICY, true)).toBe(true);
    expect(isFinalContent(termsOfEntry(entry(c.now(), { ttlMs: DAY })), POLICY, true)).toBe(true);
    // A promoted entry: fresh for the final TTL from the promotion, longer than that from its creation.
    const promoted = { ...entry(c.now()), freshUntil: c.now() + 5000 + DAY };
    expect(isFinalContent(termsOfEntry(promoted), POLICY, true)).toBe(true);
  });

  it('fails for content still moving, an error, a shorter TTL, or an endpoint that cannot be final', () => {
    const t = fakeClock().now();
    expect(isFinalContent(cls(), POLICY, true)).toBe(false);
    expect(isFinalContent(cls({ ttlMs: DAY, negative: true }), POLICY, true)).toBe(false);
    expect(isFinalContent(cls({ ttlMs: DAY, headDependent: true }), POLICY, true)).toBe(false);
    expect(isFinalContent(cls({ ttlMs: DAY, finalAt: 95 }), POLICY, true)).toBe(false);
    expect(isFinalContent(cls({ ttlMs: DAY }), POLICY, false)).toBe(false);
    expect(isFinalContent(termsOfEntry(entry(t, { ttlMs: DAY, headDependent: true })), POLICY, true)).toBe(false);
    // Tag-kept while its block awaits finality, however long its bound.
    const watched = entry(t, { ttlMs: 2 * DAY, deps: { tags: [], watchFinal: 95 } });
    expect(isFinalContent(termsOfEntry(watched), POLICY, true)).toBe(false);
    expect(isFinalContent(termsOfEntry({ ...watched, deps: { tags: [], watchFinal: null } }), POLICY, true)).toBe(true);
  });

  it('fails when the final TTL is not longer than the ordinary one (every ordinary answer would look final)', () => {
    const flat = { ...POLICY, finalTtlMs: 5000 };
    expect(isFinalContent(cls(), flat, true)).toBe(false);
    expect(isFinalContent(termsOfEntry(entry(0, { ttlMs: 5000 })), flat, true)).toBe(false);
  });
});

describe('keeping decisions', () => {
  const deps: EntryDeps = { tags: ['address:a'], watchFinal: null };

  it('own: as classified; head: head-dependent; watch: tags with its own timing', () => {
    const c = cls();
    expect(keptBy(c, { kind: 'own' })).toEqual({ cls: c, deps: undefined });
    expect(keptBy(c, { kind: 'head' })).toEqual({ cls: { ...c, headDependent: true }, deps: undefined });
    const h = cls({ headDependent: true });
    expect(keptBy(h, { kind: 'head' }).cls).toBe(h);
    expect(keptBy(c, { kind: 'watch', deps })).toEqual({ cls: c, deps });
  });

  it('tags: fresh up to the bound (never shorter than classified), not head-dependent, clients told the TTL', () => {
    const k = keptBy(cls({ headDependent: true }), { kind: 'tags', deps, boundMs: 60_000 });
    expect(k.cls.ttlMs).toBe(60_000);
    expect(k.cls.headDependent).toBe(false);
    expect(k.deps).toEqual({ ...deps, clientMaxMs: 5000 });
    expect(keptBy(cls({ ttlMs: DAY }), { kind: 'tags', deps, boundMs: 60_000 }).cls.ttlMs).toBe(DAY);
  });
});

describe('a composed page', () => {
  it('is fresh until its first limit, never stale, kept PAGE_KEPT_MS after', () => {
    const c = fakeClock();
    const now = c.now();
    expect(
      pageWindows(now, [
        { kind: 'part', until: now + 9000 },
        { kind: 'part', until: now + 4000 },
      ]),
    ).toEqual({
      createdAt: now,
      freshUntil: now + 4000,
      swrUntil: now + 4000,
      sieUntil: now + 4000 + PAGE_KEPT_MS,
    });
    expect(pageWindows(now, [{ kind: 'part', until: now + 9000 }, { kind: 'failed' }]).freshUntil).toBe(
      now + FAILED_PART_TTL_MS,
    );
    expect(pageWindows(now, [{ kind: 'part', until: now + 9000 }, { kind: 'stale' }]).freshUntil).toBe(now + 250);
    expect(pageWindows(now, []).freshUntil).toBe(now);
  });
});
