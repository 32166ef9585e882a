/** The Redis codec carries an entry's dependency tags and tag header, so every replica judges it alike. */
import { describe, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import { decodeEntry, encodeEntry } from '../../src/redis/codec.js';

describe('codec: dependency tags', () => {
  it('round-trips deps and tagHeader, and entries without them stay without', async () => {
    const base = {
      key: 'k',
      status: 200,
      body: Buffer.from('{"code":0}'),
      createdAt: 1,
      ttlMs: 5,
      swrMs: 0,
      sieMs: 0,
      head: 7,
      headDependent: false,
      finalAt: null,
      negative: false,
      stamps: [],
    };
    const tagged = createEntry({
      ...base,
      deps: { tags: ['address:n1x', 'tokens'], watchFinal: 6 },
      tagHeader: 'address:n1x,tokens',
    });
    const back = await decodeEntry(await encodeEntry(tagged, 1 << 20));
    expect(back?.deps).toEqual({ tags: ['address:n1x', 'tokens'], watchFinal: 6 });
    expect(back?.tagHeader).toBe('address:n1x,tokens');
    const plain = await decodeEntry(await encodeEntry(createEntry(base), 1 << 20));
    expect(plain).toBeDefined();
    expect(plain && 'deps' in plain).toBe(false);
  });
});
