/**
 * The one shared contract every CacheStore tier passes (memory, Redis), in the
 * spirit of undici's cache-store-test-utils: call `cacheStoreContract(name,
 * factory)` from a tier's test file. The factory makes a fresh, empty store per
 * test; `cleanup` closes it. A tier that takes a clock hands it over and expiry
 * is checked by moving it; a tier on wall time (Redis) is polled, never slept on.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheEntry, CacheStore } from '../../src/cache/types.js';
import type { FakeClock } from '../helpers/clock.js';
import { waitFor } from '../helpers/fake-upstream.js';

export interface StoreUnderTest {
  store: CacheStore;
  cleanup(): Promise<void>;
  /** The store's clock, when the test can move it (absent: the store runs on wall time). */
  clock?: FakeClock;
}

let seq = 0;

/** A full entry with every field set to a non-default value; `patch` overrides. */
export function contractEntry(key: string, patch: Partial<CacheEntry> = {}, now = Date.now()): CacheEntry {
  const body = Buffer.from(
    `{"code":0,"msg":"success","data":{"key":${JSON.stringify(key)},` +
      '"height":4842503.0,"server_timestamp":1595164447597}}',
  );
  const tsStart = body.indexOf('1595164447597');
  seq += 1;
  return {
    key,
    status: 200,
    body,
    etag: `W/"etag-${seq}"`,
    createdAt: now - 1000,
    freshUntil: now + 10_000,
    swrUntil: now + 20_000,
    sieUntil: now + 60_000,
    head: 4842503,
    headDependent: true,
    finalAt: 4842500,
    negative: false,
    stamps: [{ start: tsStart, end: tsStart + 13, kind: 'now', base: 0 }],
    ...patch,
  };
}

/** Field-by-field comparison, body byte-exact (a Buffer, not a Uint8Array look-alike). */
function expectSameEntry(actual: CacheEntry | undefined, expected: CacheEntry): void {
  expect(actual).toBeDefined();
  if (actual === undefined) return;
  expect(Buffer.isBuffer(actual.body)).toBe(true);
  expect(actual.body.equals(expected.body)).toBe(true);
  const { body: _a, stamps: sa, ...restA } = actual;
  const { body: _e, stamps: se, ...restE } = expected;
  expect(restA).toStrictEqual(restE);
  expect(sa.map((s) => ({ ...s }))).toStrictEqual(se.map((s) => ({ ...s })));
}

export function cacheStoreContract(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`CacheStore contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: CacheStore;

    beforeEach(async () => {
      sut = await factory();
      store = sut.store;
    });
    afterEach(async () => {
      await sut.cleanup();
    });

    it('has a name', () => {
      expect(typeof store.name).toBe('string');
      expect(store.name.length).toBeGreaterThan(0);
    });

    it('round-trips every field byte-exactly', async () => {
      const e = contractEntry('tx/list?page=1&page_size=20');
      await store.set(e);
      expectSameEntry(await store.get(e.key), e);
    });

    it('round-trips nulls, negative entries, error statuses and empty stamps', async () => {
      const e = contractEntry('tx/detail?hash=00', {
        status: 404,
        body: Buffer.from('{"code":404,"msg":"not found","data":null}'),
        head: null,
        headDependent: false,
        finalAt: null,
        negative: true,
        stamps: [],
      });
      await store.set(e);
      expectSameEntry(await store.get(e.key), e);
    });

    it('round-trips several stamps of both kinds', async () => {
      const e = contractEntry('tx/nrc20?address=n1&page=1&page_size=2', {
        stamps: [
          { start: 5, end: 18, kind: 'now', base: 0 },
          { start: 30, end: 37, kind: 'diff', base: 1595146350000 },
          { start: 50, end: 63, kind: 'now', base: 0 },
        ],
      });
      await store.set(e);
      expectSameEntry(await store.get(e.key), e);
    });

    it('misses on an unknown key', async () => {
      expect(await store.get('never/set')).toBeUndefined();
    });

    it('overwrites an entry on set', async () => {
      const a = contractEntry('same');
      const b = contractEntry('same', { body: Buffer.from('{"code":0,"msg":"success","data":{"v":2}}'), stamps: [] });
      await store.set(a);
      await store.set(b);
      expectSameEntry(await store.get('same'), b);
    });

    it('deletes an entry; deleting an unknown key is harmless', async () => {
      const e = contractEntry('gone');
      await store.set(e);
      await store.delete(e.key);
      expect(await store.get(e.key)).toBeUndefined();
      await store.delete('never/there');
      expect(await store.get('never/there')).toBeUndefined();
    });

    it('keeps keys apart', async () => {
      const a = contractEntry('k?a=1');
      const b = contractEntry('k?a=2', { body: Buffer.from('{"other":true}'), stamps: [] });
      await store.set(a);
      await store.set(b);
      expectSameEntry(await store.get(a.key), a);
      expectSameEntry(await store.get(b.key), b);
    });

    it('does not return an entry whose sieUntil has passed', async () => {
      const now = sut.clock?.now() ?? Date.now();
      await store.set(contractEntry('dead', { freshUntil: now - 30, swrUntil: now - 20, sieUntil: now - 10 }, now));
      expect(await store.get('dead')).toBeUndefined();
    });

    it('expires an entry after sieUntil', async () => {
      const clock = sut.clock;
      const now = clock?.now() ?? Date.now();
      const e = contractEntry('short', { freshUntil: now + 100, swrUntil: now + 200, sieUntil: now + 400 }, now);
      await store.set(e);
      const back = await store.get(e.key);
      if (clock !== undefined) {
        expectSameEntry(back, e);
        clock.set(e.sieUntil - 1);
        expectSameEntry(await store.get(e.key), e);
        clock.set(e.sieUntil);
        expect(await store.get(e.key)).toBeUndefined();
        return;
      }
      // Only check presence if we are still inside the window (slow CI tolerance).
      if (Date.now() < e.sieUntil - 50) expectSameEntry(back, e);
      await waitFor(async () => (await store.get(e.key)) === undefined, 5000);
      expect(Date.now()).toBeGreaterThanOrEqual(e.sieUntil);
    });

    it('stores a 1 MiB body', async () => {
      const body = Buffer.from(`{"code":0,"msg":"success","data":"${'x'.repeat(1024 * 1024)}"}`);
      const e = contractEntry('large', { body, stamps: [] });
      await store.set(e);
      expectSameEntry(await store.get(e.key), e);
    });

    it('is binary-safe (every byte value, invalid UTF-8, NUL)', async () => {
      const bytes = Buffer.alloc(256 * 4);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
      const body = Buffer.concat([bytes, randomBytes(4096), Buffer.from([0xff, 0xfe, 0x00, 0xc3])]);
      const e = contractEntry('binary', { body, stamps: [] });
      await store.set(e);
      expectSameEntry(await store.get(e.key), e);
    });

    it('keys with unusual characters', async () => {
      const key = 'token/holders?token=N%C3%84X&x=a b:c/d\u00e9';
      const e = contractEntry(key);
      await store.set(e);
      expectSameEntry(await store.get(key), e);
    });

    it('holds many keys', async () => {
      const entries = Array.from({ length: 300 }, (_, i) =>
        contractEntry(`block/detail?h=${i}`, {
          body: Buffer.from(`{"code":0,"msg":"success","data":{"height":${i}}}`),
          stamps: [],
        }),
      );
      await Promise.all(entries.map((e) => store.set(e)));
      const back = await Promise.all(entries.map((e) => store.get(e.key)));
      back.forEach((b, i) => expectSameEntry(b, entries[i] as CacheEntry));
    });
  });
}
