/** A stage end height travels with the entry through the Redis codec, so every replica judges it alike. */
import { describe, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import { TagClock } from '../../src/invalidation/clock.js';
import { decodeEntry, encodeEntry } from '../../src/redis/codec.js';

describe('stage end watch', () => {
  it('round-trips watchHead, and the decoded entry is stale once the head reaches it', async () => {
    const base = {
      key: 'nax/summary',
      status: 200,
      body: Buffer.from('{"code":0}'),
      createdAt: 1,
      ttlMs: 60_000,
      swrMs: 0,
      sieMs: 0,
      head: 7,
      headDependent: false,
      finalAt: null,
      negative: false,
      stamps: [],
    };
    const back = await decodeEntry(
      await encodeEntry(createEntry({ ...base, deps: { tags: [], watchFinal: null, watchHead: 9 } }), 1 << 20),
    );
    expect(back?.deps).toEqual({ tags: [], watchFinal: null, watchHead: 9 });
    const clock = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    expect(clock.stale(back!, { bestHead: () => 8, finalHeight: () => null })).toBe(false);
    expect(clock.stale(back!, { bestHead: () => 9, finalHeight: () => null })).toBe(true);
    // Entries written without it (older replicas, other endpoints) still decode.
    const plain = await decodeEntry(
      await encodeEntry(createEntry({ ...base, deps: { tags: ['address:n1x'], watchFinal: null } }), 1 << 20),
    );
    expect(plain?.deps).toEqual({ tags: ['address:n1x'], watchFinal: null });
    // The downstream cap travels too: a replica reading it from Redis tells clients the same max-age.
    const capped = await decodeEntry(
      await encodeEntry(
        createEntry({ ...base, deps: { tags: ['address:n1x'], watchFinal: null, clientMaxMs: 3000 } }),
        1 << 20,
      ),
    );
    expect(capped?.deps).toEqual({ tags: ['address:n1x'], watchFinal: null, clientMaxMs: 3000 });
  });
});
