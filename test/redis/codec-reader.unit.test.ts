/**
 * A reader judges a shared entry by its own clock: at least as old as the
 * writer's age at the write plus the time since (the key's expiry the writer
 * set, less what is left), its windows moved back with their lengths kept.
 */
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry } from '../../src/redis/codec.js';
import { makeEntry } from './fixtures.js';

const HOUR = 3_600_000;

describe('redis codec: the reader judges by its own clock', () => {
  const e = makeEntry('address/info?address=a');
  const life = { fresh: e.freshUntil - e.createdAt, sie: e.sieUntil - e.createdAt };

  it('a writer an hour ahead: as old as the writer said plus the time since the write', async () => {
    const raw = await encodeEntry(e, 1024, e.createdAt + 1000);
    const px = Math.ceil(e.sieUntil - (e.createdAt + 1000));
    const readerNow = e.createdAt - HOUR + 3000;
    const seen = decodeEntry(raw, { now: readerNow, remainingMs: px - 2000 })!;
    expect(readerNow - seen.createdAt).toBe(3000);
    expect(seen.freshUntil - seen.createdAt).toBe(life.fresh);
    expect(seen.sieUntil - seen.createdAt).toBe(life.sie);
    expect(seen.body.equals(e.body)).toBe(true);
  });

  it('a writer behind, or in step: the reader’s own clock decides (never younger)', async () => {
    const raw = await encodeEntry(e, 1024, e.createdAt);
    expect(decodeEntry(raw, { now: e.createdAt + HOUR, remainingMs: 1 })).toEqual(e);
    expect(decodeEntry(raw, { now: e.createdAt + 500 })).toEqual(e);
  });

  it('without a reader: the times as written', async () => {
    expect(decodeEntry(await encodeEntry(e, 1024, e.createdAt + HOUR))).toEqual(e);
  });
});
