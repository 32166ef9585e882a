/** The leader's refreshed entries on the bus: encoded within a round's bytes, installed only when fresh and newer. */
import { describe, expect, it } from 'vitest';
import { createEntry, takesOver } from '../../src/cache/entry.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { MAX_ROUND_BYTES, encodeShared, installShared } from '../../src/fleet/shared-entries.js';

const T0 = 1_700_000_000_000;

function entry(key: string, createdAt = T0, body = '{"code":0,"msg":"success","data":{"list":[]}}'): CacheEntry {
  return createEntry({
    key,
    status: 200,
    body: Buffer.from(body),
    createdAt,
    ttlMs: 5000,
    swrMs: 1000,
    sieMs: 60_000,
    head: 100,
    headDependent: true,
    finalAt: null,
    negative: false,
    stamps: [],
  });
}

/** A memory tier taking offers as Resolver.offer does: fresh here, and made later than the copy held. */
function memory(held: CacheEntry[] = [], fresh: (e: CacheEntry) => boolean = () => true) {
  const map = new Map(held.map((e) => [e.key, e]));
  const offer = (e: CacheEntry): boolean => {
    if (!fresh(e) || !takesOver(map.get(e.key), e)) return false;
    map.set(e.key, e);
    return true;
  };
  return { map, deps: offer };
}

describe('shared entries', () => {
  it('arrive as they left: body, ETag and windows', async () => {
    const sent = [entry('block/list'), entry('tx/list?page=1&page_size=10')];
    const m = memory();
    expect(await installShared(await encodeShared(sent), m.deps)).toBe(2);
    for (const e of sent) {
      const got = m.map.get(e.key)!;
      expect(got.body.equals(e.body)).toBe(true);
      expect([got.etag, got.createdAt, got.freshUntil, got.swrUntil, got.sieUntil, got.head]).toEqual([
        e.etag,
        e.createdAt,
        e.freshUntil,
        e.swrUntil,
        e.sieUntil,
        e.head,
      ]);
    }
  });

  it('replace only an older copy, and only when fresh here', async () => {
    const older = entry('a', T0 - 1000);
    const newer = entry('b', T0 + 1000);
    const m = memory([older, newer], (e) => e.key !== 'c');
    const taken = await installShared(await encodeShared([entry('a'), entry('b'), entry('c')]), m.deps);
    expect(taken).toBe(1);
    expect(m.map.get('a')!.createdAt).toBe(T0);
    expect(m.map.get('b')!.createdAt).toBe(T0 + 1000);
    expect(m.map.has('c')).toBe(false);
  });

  it(
    'a round carries at most MAX_ROUND_BYTES; ' + 'what does not fit is left out, what fits after it still goes',
    async () => {
      const big = entry('big', T0, 'x'.repeat(MAX_ROUND_BYTES));
      const encoded = await encodeShared([entry('a'), big, entry('b')]);
      expect(encoded).toHaveLength(2);
      expect(encoded.reduce((n, t) => n + t.length, 0)).toBeLessThanOrEqual(MAX_ROUND_BYTES);
      const m = memory();
      await installShared(encoded, m.deps);
      expect([...m.map.keys()]).toEqual(['a', 'b']);
    },
  );

  it('drops what is not an entry', async () => {
    const m = memory();
    expect(await installShared(['bm90IGFuIGVudHJ5', ''], m.deps)).toBe(0);
  });
});
