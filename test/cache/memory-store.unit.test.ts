import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import {
  BUFFER_OVERHEAD_BYTES as BUF,
  ENTRY_OVERHEAD_BYTES as ENTRY,
  HEAP_HEADROOM as X,
  MemoryStore,
} from '../../src/cache/memory-store.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { findStamps } from '../../src/transform/stamps.js';
import { cacheStoreContract, contractEntry } from './store-contract.js';
import { fakeClock } from '../helpers/clock.js';

cacheStoreContract('memory', async () => {
  const clock = fakeClock(Date.now());
  const store = new MemoryStore({ maxBytes: 64 * 1024 * 1024, purgeIntervalMs: 0, clock: clock.now });
  return { store, cleanup: () => store.close(), clock };
});

const T0 = 1_700_000_000_000;

function jsonBody(size: number, extra = ''): Buffer {
  const items = Array.from(
    { length: Math.ceil(size / 60) },
    (_, i) => `{"tx":"${i.toString(16).padStart(16, '0')}","value":"1000"}`,
  );
  return Buffer.from(`{"code":0,"msg":"success","data":{${extra}"list":[${items.join(',')}]}}`);
}

function entry(key: string, body: Buffer, now: number, patch: Partial<CacheEntry> = {}): CacheEntry {
  return contractEntry(
    key,
    {
      body,
      stamps: [],
      createdAt: now,
      freshUntil: now + 10_000,
      swrUntil: now + 20_000,
      sieUntil: now + 60_000,
      ...patch,
    },
    now,
  );
}

describe('MemoryStore', () => {
  it('makes gzip and brotli variants once, for bodies of at least 1 KiB, charging their exact size', async () => {
    const c = fakeClock(T0);
    const store = new MemoryStore({ maxBytes: 1 << 24, clock: c.now, purgeIntervalMs: 0 });
    const body = jsonBody(8000);
    const e = entry('big', body, c.now());
    await store.set(e);
    const m = store.peek('big');
    expect(m?.entry).toBe(e);
    if (m === undefined) return;
    const gz = m.payload('gzip', c.now());
    const br = m.payload('br', c.now());
    const id = m.payload('identity', c.now());
    expect(gz.encoding).toBe('gzip');
    expect(br.encoding).toBe('br');
    expect(id).toEqual({ body, encoding: 'identity' });
    expect(id.body).toBe(body);
    expect(gunzipSync(gz.body).equals(body)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(body)).toBe(true);
    expect(gz.body.length).toBeLessThan(body.length);
    // A hit does no work: the very same payload objects come back, whatever the time.
    c.advance(5000);
    expect(m.payload('gzip', c.now())).toBe(gz);
    expect(m.payload('br', c.now())).toBe(br);
    expect(m.size).toBe(body.length + gz.body.length + br.body.length + X * (3 * BUF + 2 * 'big'.length + ENTRY));
    expect(store.bytes).toBe(m.size);
    expect(store.entries).toBe(1);
  });

  it('falls back to identity for small or incompressible bodies', async () => {
    const store = new MemoryStore({ maxBytes: 1 << 24, purgeIntervalMs: 0 });
    const small = entry('small', Buffer.from('{"code":0,"msg":"success","data":{"count":1074}}'), Date.now());
    const noise = entry('noise', randomBytes(4096), Date.now());
    await store.set(small);
    await store.set(noise);
    for (const e of [small, noise]) {
      const m = store.peek(e.key);
      for (const enc of ['br', 'gzip', 'identity'] as const) {
        const p = m?.payload(enc, Date.now());
        expect(p?.encoding).toBe('identity');
        expect(p?.body).toBe(e.body);
      }
    }
  });

  it('re-stamps a stamped entry at most once per second per encoding', async () => {
    const c = fakeClock(T0 + 100);
    const store = new MemoryStore({ maxBytes: 1 << 24, clock: c.now, purgeIntervalMs: 0 });
    const body = jsonBody(4000, '"server_timestamp":1595157487445,');
    const stamps = findStamps(body, 'tx/list');
    expect(stamps).toHaveLength(1);
    await store.set(entry('stamped', body, c.now(), { stamps }));
    const m = store.peek('stamped');
    if (m === undefined) throw new Error('not stored');
    const ts = (b: Buffer) =>
      (JSON.parse(b.toString()) as { data: { server_timestamp: number } }).data.server_timestamp;

    // At createdAt itself the upstream's own bytes are served (a MISS is byte-identical).
    const raw = m.payload('identity', c.now());
    expect(raw.body).toBe(body);
    const rawGz = m.payload('gzip', c.now());
    expect(gunzipSync(rawGz.body).equals(body)).toBe(true);
    const brSize = m.payload('br', c.now()).body.length;
    expect(m.size).toBe(
      2 * (body.length + rawGz.body.length + brSize) + X * (2 * 3 * BUF + 2 * 'stamped'.length + 64 + ENTRY),
    );

    // raw() is the stored bytes whatever the time (what a MISS sends).
    expect(m.raw('identity').body).toBe(body);
    expect(m.raw('gzip')).toBe(rawGz);

    // Any other instant is re-stamped, once per second per encoding.
    c.set(T0 + 500);
    const id1 = m.payload('identity', c.now());
    expect(ts(id1.body)).toBe(T0 + 500);
    const gz1 = m.payload('gzip', c.now());
    expect(gunzipSync(gz1.body).equals(id1.body)).toBe(true);

    c.set(T0 + 999); // same second: nothing re-rendered
    expect(m.payload('identity', c.now())).toBe(id1);
    expect(m.payload('gzip', c.now())).toBe(gz1);

    c.set(T0 + 1500); // new second
    const id2 = m.payload('identity', c.now());
    expect(id2).not.toBe(id1);
    expect(ts(id2.body)).toBe(T0 + 1500);
    const br2 = m.payload('br', c.now());
    expect(br2.encoding).toBe('br');
    expect(brotliDecompressSync(br2.body).equals(id2.body)).toBe(true);
    expect(m.payload('br', T0 + 1999)).toBe(br2);
    const gz2 = m.payload('gzip', c.now());
    expect(gz2).not.toBe(gz1);
    expect(gunzipSync(gz2.body).equals(id2.body)).toBe(true);
    // A small stamped entry (no variants) re-stamps its identity for every encoding.
    const small = Buffer.from('{"code":0,"msg":"success","data":{"server_timestamp":1}}');
    await store.set(entry('small', small, c.now(), { stamps: findStamps(small, 'block/max') }));
    const sm = store.peek('small');
    expect(sm?.payload('br', c.now()).body).toBe(small);
    const later = sm?.payload('br', c.now() + 3000);
    expect(later?.encoding).toBe('identity');
    expect(later !== undefined && ts(later.body)).toBe(c.now() + 3000);
    expect(sm?.payload('gzip', c.now() + 3000)).toBe(later);
    expect(sm?.raw('br')).toEqual({ body: small, encoding: 'identity' });
    // The stored entry (and its ETag) is unchanged.
    expect(m.entry.body).toBe(body);
    // Only the stamped digits differ from the stored body.
    expect(id2.body.toString().replace(/"server_timestamp":\d+/, '')).toBe(
      body.toString().replace(/"server_timestamp":\d+/, ''),
    );
  });

  it('stays within maxBytes, evicting least recently used entries and counting only evictions', async () => {
    const evicted: string[] = [];
    const store = new MemoryStore({ maxBytes: 10_000, onEvict: (k) => evicted.push(k), purgeIntervalMs: 0 });
    const body = Buffer.from(`{"code":0,"msg":"success","data":"${'a'.repeat(700)}"}`); // < 1 KiB: no variants
    const now = Date.now();
    for (let i = 0; i < 10; i++) await store.set(entry(`k${i}`, body, now));
    const per = store.peek('k9')?.size ?? 0;
    expect(per).toBe(body.length + X * (BUF + 2 * 2 + ENTRY));
    const fit = Math.floor(10_000 / per);
    expect(store.entries).toBe(Math.min(10, fit));
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    const before = evicted.length;
    expect(before).toBe(10 - fit);
    // The oldest surviving key is read (now most recently used): the next insert evicts another one.
    store.peek(`k${10 - fit}`);
    await store.set(entry('new', body, now));
    expect(evicted.length).toBe(before + 1);
    expect(store.peek(`k${10 - fit}`)).toBeDefined();
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    // Overwrites and deletes are not evictions.
    await store.set(entry('new', body, now));
    await store.delete('new');
    expect(evicted.length).toBe(before + 1);
  });

  it('does not keep an entry larger than maxBytes', async () => {
    const store = new MemoryStore({ maxBytes: 2000, purgeIntervalMs: 0 });
    await store.set(entry('huge', randomBytes(5000), Date.now()));
    expect(store.peek('huge')).toBeUndefined();
    expect(store.bytes).toBe(0);
  });

  it('never returns an entry past sieUntil (injected clock), and expiry is not an eviction', async () => {
    const c = fakeClock(T0);
    const evicted: string[] = [];
    const store = new MemoryStore({
      maxBytes: 1 << 20,
      clock: c.now,
      onEvict: (k) => evicted.push(k),
      purgeIntervalMs: 0,
    });
    const e = entry('e', Buffer.from('{"a":1}'), c.now(), { sieUntil: c.now() + 5000 });
    await store.set(e);
    c.advance(4999);
    expect(store.peek('e')?.entry).toBe(e);
    c.advance(1);
    expect(store.peek('e')).toBeUndefined();
    expect(await store.get('e')).toBeUndefined();
    expect(store.entries).toBe(0);
    expect(evicted).toEqual([]);
  });

  it('keeps the latest of concurrent sets of one key, and a delete cancels a pending set', async () => {
    const store = new MemoryStore({ maxBytes: 1 << 24, purgeIntervalMs: 0 });
    const now = Date.now();
    const slow = entry('k', jsonBody(200_000), now);
    const fast = entry('k', Buffer.from('{"v":2}'), now);
    await Promise.all([store.set(slow), store.set(fast)]);
    expect(store.peek('k')?.entry).toBe(fast);
    const p = store.set(entry('d', jsonBody(100_000), now));
    await store.delete('d');
    await p;
    expect(store.peek('d')).toBeUndefined();
  });

  it('setting an already expired entry removes the older one', async () => {
    const store = new MemoryStore({ maxBytes: 1 << 20, purgeIntervalMs: 0 });
    const now = Date.now();
    await store.set(entry('x', Buffer.from('{}'), now));
    await store.set(entry('x', Buffer.from('{}'), now, { freshUntil: now - 3, swrUntil: now - 2, sieUntil: now - 1 }));
    expect(store.peek('x')).toBeUndefined();
  });

  it('purges expired entries periodically', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const c = fakeClock(T0);
      const store = new MemoryStore({ maxBytes: 1 << 20, clock: c.now, purgeIntervalMs: 20 });
      await store.set(entry('p', Buffer.from('{}'), c.now(), { sieUntil: c.now() + 10 }));
      expect(store.entries).toBe(1);
      c.advance(1000);
      vi.advanceTimersByTime(19);
      expect(store.entries).toBe(1); // not before the interval
      vi.advanceTimersByTime(1);
      expect(store.entries).toBe(0);
      await store.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a non-positive maxBytes', () => {
    expect(() => new MemoryStore({ maxBytes: 0 })).toThrow(RangeError);
  });
});

describe('MemoryStore.promote (an entry read from Redis)', () => {
  const stampFree = (key: string, body: Buffer, now: number) => entry(key, body, now);

  it(
    'compresses nothing until a hit asks; ' + 'then makes that variant once, in the background, and charges it',
    async () => {
      const c = fakeClock(T0);
      const store = new MemoryStore({ maxBytes: 1 << 24, clock: c.now, purgeIntervalMs: 0 });
      const body = jsonBody(8000);
      const gz = gzipSync(body, { level: 6 });
      const e = stampFree('p', body, c.now());
      const m = store.promote(e, gz);
      expect(m?.entry).toBe(e);
      if (m === undefined) return;
      expect(store.compressions).toBe(0);
      expect(m.payload('identity', c.now()).body).toBe(body);
      expect(m.payload('gzip', c.now())).toEqual({ body: gz, encoding: 'gzip' });
      expect(store.compressions).toBe(0);
      const plainSize = m.size;
      // br not made yet: identity now, and one compression started (only one, however often asked).
      expect(m.payload('br', c.now()).encoding).toBe('identity');
      expect(m.payload('br', c.now()).encoding).toBe('identity');
      expect(store.compressions).toBe(1);
      await vi.waitFor(() => expect(store.peek('p')?.unmade('br')).toBe(false));
      const next = store.peek('p');
      const br = next?.payload('br', c.now());
      expect(br?.encoding).toBe('br');
      expect(brotliDecompressSync(br!.body).equals(body)).toBe(true);
      expect(next?.payload('gzip', c.now()).body.equals(gz)).toBe(true);
      expect(next!.size).toBe(plainSize + br!.body.length + X * BUF);
      expect(store.bytes).toBe(next!.size);
      expect(store.compressions).toBe(1);
    },
  );

  it(
    'a stamped entry asks for its missing variant on a ' + 're-stamped hit too (not only at its creation instant)',
    async () => {
      const c = fakeClock(T0);
      const store = new MemoryStore({ maxBytes: 1 << 24, clock: c.now, purgeIntervalMs: 0 });
      const body = jsonBody(4000, '"server_timestamp":1595157487445,');
      const e = entry('st', body, c.now(), { stamps: findStamps(body, 'tx/list') });
      store.promote(e, gzipSync(body, { level: 6 }));
      c.set(T0 + 2000);
      expect(store.peek('st')?.payload('br', c.now()).encoding).toBe('identity');
      expect(store.compressions).toBe(1);
      await vi.waitFor(() => expect(store.peek('st')?.unmade('br')).toBe(false));
      expect(store.peek('st')?.payload('br', c.now() + 1000).encoding).toBe('br');
    },
  );

  it('makes gzip too when Redis had none; small bodies get no variants at all', async () => {
    const c = fakeClock(T0);
    const store = new MemoryStore({ maxBytes: 1 << 24, clock: c.now, purgeIntervalMs: 0 });
    const body = jsonBody(4000);
    store.promote(stampFree('g', body, c.now()), null);
    expect(store.peek('g')?.raw('gzip').encoding).toBe('identity');
    await vi.waitFor(() => expect(store.peek('g')?.unmade('gzip')).toBe(false));
    expect(gunzipSync(store.peek('g')!.raw('gzip').body).equals(body)).toBe(true);
    const small = store.promote(stampFree('s', Buffer.from('{"code":0}'), c.now()), null);
    expect(small?.raw('br').encoding).toBe('identity');
    expect(small?.unmade('br')).toBe(false);
    expect(store.compressions).toBe(1);
  });
});
