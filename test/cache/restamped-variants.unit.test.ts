/**
 * The hit path never compresses: a re-stamped entry asked with gzip/br in a
 * new second gets the re-stamped identity bytes at once, the compression of
 * that second runs in the background, and later hits of the same second get
 * it, decoding to the same bytes. Stamp-free entries are served as stored.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/cache/memory-store.js';
import { compressionsRunning, hitPayload } from '../../src/cache/restamped-variants.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { findStamps } from '../../src/transform/stamps.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { contractEntry } from './store-contract.js';

const T0 = 1_700_000_000_100;

function jsonBody(items: number, extra = ''): Buffer {
  const list = Array.from({ length: items }, (_, i) => `{"tx":"${i.toString(16).padStart(16, '0')}","value":"1000"}`);
  return Buffer.from(`{"code":0,"msg":"success","data":{${extra}"list":[${list.join(',')}]}}`);
}

function entry(key: string, body: Buffer, now: number, stamps: CacheEntry['stamps']): CacheEntry {
  return contractEntry(
    key,
    { body, stamps, createdAt: now, freshUntil: now + 10_000, swrUntil: now + 20_000, sieUntil: now + 60_000 },
    now,
  );
}

const ts = (b: Buffer): number =>
  (JSON.parse(b.toString()) as { data: { server_timestamp: number } }).data.server_timestamp;

describe('hitPayload', () => {
  it('answers identity while the new second is compressed in the background, then the compressed bytes', async () => {
    let now = T0;
    const store = new MemoryStore({ maxBytes: 1 << 24, clock: () => now, purgeIntervalMs: 0 });
    const body = jsonBody(80, '"server_timestamp":1595157487445,');
    await store.set(entry('stamped', body, now, findStamps(body, 'tx/list')));
    const m = store.peek('stamped')!;

    // At createdAt: the stored variants, as the memory tier holds them.
    expect(hitPayload(m, 'gzip', now).encoding).toBe('gzip');

    for (const enc of ['gzip', 'br'] as const) {
      now += 1000;
      const first = hitPayload(m, enc, now);
      expect(first.encoding).toBe('identity');
      expect(ts(first.body)).toBe(now);
      await waitFor(() => compressionsRunning() === 0, 5000, 'background compression');
      now += 300; // same second
      const later = hitPayload(m, enc, now);
      expect(later.encoding).toBe(enc);
      const plain = enc === 'gzip' ? gunzipSync(later.body) : brotliDecompressSync(later.body);
      expect(plain.equals(first.body)).toBe(true);
      expect(hitPayload(m, enc, now + 100)).toBe(later); // reused within the second
    }
    await store.close();
  });

  it('serves stamp-free entries and entries without variants as stored', async () => {
    const now = T0;
    const store = new MemoryStore({ maxBytes: 1 << 24, clock: () => now + 5000, purgeIntervalMs: 0 });
    const big = jsonBody(80);
    await store.set(entry('plain', big, now, []));
    const m = store.peek('plain')!;
    expect(hitPayload(m, 'gzip', now + 5000)).toBe(m.payload('gzip', now + 5000));
    const small = jsonBody(1, '"server_timestamp":1,');
    await store.set(entry('small', small, now, findStamps(small, 'tx/list')));
    const s = store.peek('small')!;
    const p = hitPayload(s, 'br', now + 5000);
    expect(p.encoding).toBe('identity');
    expect(ts(p.body)).toBe(now + 5000);
    expect(compressionsRunning()).toBe(0);
    await store.close();
  });
});
