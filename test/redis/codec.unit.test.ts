import { describe, expect, it } from 'vitest';
import { gunzipSync, gzipSync } from 'node:zlib';
import { carriedGzip } from '../../src/cache/carried-gzip.js';
import { CODEC_VERSION, decodeEntry, encodeEntry } from '../../src/redis/codec.js';
import { makeEntry } from './fixtures.js';

describe('redis codec', () => {
  it('round-trips every field', async () => {
    const e = makeEntry('block?height=1', { negative: true, status: 404, head: null, finalAt: null, stamps: [] });
    expect(await decodeEntry(await encodeEntry(e, 1024))).toEqual(e);
  });

  it("carries a passthrough answer's Content-Type; the headers relayed with an unstored answer never", async () => {
    const e = makeEntry('/explorer/x', { contentType: 'text/csv', relayed: ['x-a', '1'] });
    const back = decodeEntry(await encodeEntry(e, 1 << 20))!;
    expect(back.contentType).toBe('text/csv');
    expect(back.relayed).toBeUndefined();
    expect(decodeEntry(await encodeEntry(makeEntry('tx/list'), 1 << 20))!.contentType).toBeUndefined();
  });

  it('stores the gzip variant beside bodies above the threshold and round-trips them exactly', async () => {
    const body = Buffer.from(
      JSON.stringify({ data: Array.from({ length: 500 }, (_, i) => ({ i, hash: 'ab'.repeat(16) })) }),
    );
    const e = makeEntry('big', { body });
    const packed = await encodeEntry(e, 1024);
    const plain = await encodeEntry(e, body.length + 1);
    expect(packed.length).toBeGreaterThan(plain.length);
    expect(packed.length).toBeLessThan(plain.length + body.length / 3);
    const back = decodeEntry(packed);
    expect(back?.body.equals(body)).toBe(true);
    expect(back).toEqual(e);
    expect(decodeEntry(plain)).toEqual(e);
  });

  it('decodes foreign, corrupt, truncated and other-version values to undefined', async () => {
    const e = makeEntry('k', { body: Buffer.alloc(4000, 'x') });
    const good = await encodeEntry(e, 1024);
    const other = Buffer.from(good);
    other.writeUInt8(CODEC_VERSION + 1, 3);
    const badHeader = Buffer.from(good);
    badHeader.write('{', 8 + 2, 'latin1');
    const missingField = Buffer.concat([good.subarray(0, 4), Buffer.from([0, 0, 0, 2]), Buffer.from('{}')]);
    const candidates = [
      Buffer.from('{"code":0}'),
      Buffer.alloc(0),
      Buffer.from('CPX'),
      gzipSync(Buffer.from('hello')),
      other,
      badHeader,
      missingField,
      good.subarray(0, good.length - 5),
      good.subarray(0, 20),
    ];
    for (const raw of candidates) expect(await decodeEntry(raw)).toBeUndefined();
    const plain = await encodeEntry(makeEntry('p'), 1 << 20);
    expect(await decodeEntry(plain.subarray(0, plain.length - 1))).toBeUndefined();
    expect(await decodeEntry(Buffer.concat([plain, Buffer.from('x')]))).toBeUndefined();
  });
});

describe('redis codec: the gzip bytes a body arrives with', () => {
  it('keeps the stored gzip variant as the gzip bytes of the decoded body; none for a body stored alone', async () => {
    const body = Buffer.from(
      JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ i, hash: 'cd'.repeat(16) })) }),
    );
    const back = await decodeEntry(await encodeEntry(makeEntry('gz', { body }), 1024));
    const gz = back === undefined ? null : carriedGzip(back.body);
    expect(gz).not.toBeNull();
    expect(gunzipSync(gz!).equals(body)).toBe(true);
    const plain = await decodeEntry(await encodeEntry(makeEntry('plain', { body }), body.length + 1));
    expect(plain === undefined ? 'missing' : carriedGzip(plain.body)).toBeNull();
  });
});
