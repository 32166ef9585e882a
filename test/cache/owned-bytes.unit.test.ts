/**
 * Stored bytes own their memory: a body that is a slice of a shared buffer
 * (Node's 8 KiB pool, a network chunk) is copied, so a cached small entry
 * never pins a whole slab.
 */
import { describe, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import { ownedBytes } from '../../src/cache/owned.js';
import { decodeEntry, encodeEntry } from '../../src/redis/codec.js';

const ownsAll = (b: Buffer) => b.byteOffset === 0 && b.buffer.byteLength === b.length;

function entryOf(body: Buffer) {
  return createEntry({
    key: 'k',
    status: 404,
    body,
    createdAt: Date.now(),
    ttlMs: 60_000,
    swrMs: 0,
    sieMs: 0,
    head: null,
    headDependent: false,
    finalAt: null,
    negative: true,
    stamps: [],
  });
}

describe('cached bytes own their memory', () => {
  it('a pooled small buffer is copied into bytes of its own', () => {
    const pooled = Buffer.from('{"code":404,"msg":"not found","data":null}');
    expect(ownsAll(pooled)).toBe(false); // Node's pool: a slice of an 8 KiB slab
    const e = entryOf(pooled);
    expect(ownsAll(e.body)).toBe(true);
    expect(e.body.equals(pooled)).toBe(true);
  });

  it('a slice of a large chunk is copied; a buffer owning its memory is kept as is', () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const slice = chunk.subarray(100, 200);
    expect(ownsAll(entryOf(slice).body)).toBe(true);
    const own = Buffer.allocUnsafeSlow(50).fill(0x61);
    expect(ownedBytes(own)).toBe(own);
  });

  it('an entry read back from the Redis codec owns its body', async () => {
    const e = entryOf(Buffer.from('{"code":0,"msg":"success","data":{"a":1}}'));
    const raw = Buffer.concat([Buffer.alloc(1000), await encodeEntry(e, 1 << 20)]).subarray(1000);
    const back = await decodeEntry(raw);
    expect(back?.body.equals(e.body)).toBe(true);
    expect(ownsAll(back!.body)).toBe(true);
  });
});
