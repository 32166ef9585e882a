/**
 * Compression: gzip and br when the client asks (quality values honoured),
 * identity otherwise, `Vary: Accept-Encoding` always; the encoded bytes decode
 * to exactly the identity body, on hits and on misses.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedBody, fixture, get, startEnv, withoutStamps, type Env, type Got } from '../helpers/proxy-kit.js';
import { waitFor } from '../helpers/fake-upstream.js';

const BIG = '/nax/summary'; // ~10 KB
const BIG_BODY = expectedBody(fixture('nax/summary').body);

function decode(g: Got): string {
  const enc = g.header('content-encoding');
  if (enc === undefined || enc === 'identity') return g.text;
  if (enc === 'gzip') return gunzipSync(g.raw).toString('utf8');
  if (enc === 'br') return brotliDecompressSync(g.raw).toString('utf8');
  throw new Error(`unexpected content-encoding ${enc}`);
}

describe('compression', () => {
  let env: Env;
  /** The proxy's clock: it moves only when a test moves it (a 3 s TTL must not end between a test's requests). */
  let now = Date.now();
  beforeAll(async () => {
    env = await startEnv({ clock: () => now });
    const warm = await get(env.base, BIG);
    expect(warm.header('x-cache')).toBe('MISS');
    // The entry is servable at once (identity); its compressed variants are attached when ready.
    await waitFor(
      async () =>
        (await get(env.base, BIG, { headers: { 'accept-encoding': 'br' } })).header('content-encoding') === 'br',
      5000,
      'compressed variants',
    );
  });
  afterAll(async () => {
    await env.close();
  });

  it.each([
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip;q=0.9', 'gzip'],
    ['gzip;q=0, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['GZIP', 'gzip'],
  ])('Accept-Encoding %s → %s', async (accept, want) => {
    const g = await get(env.base, BIG, { headers: { 'accept-encoding': accept } });
    expect(g.status).toBe(200);
    expect(g.header('x-cache')).toBe('HIT');
    expect(g.header('content-encoding')).toBe(want);
    expect(g.header('vary')).toMatch(/accept-encoding/i);
    expect(g.raw.length).toBeLessThan(Buffer.byteLength(BIG_BODY));
    expect(Number(g.header('content-length') ?? g.raw.length)).toBe(g.raw.length);
    expect(decode(g)).toBe(BIG_BODY);
  });

  it.each([
    ['(none)', undefined],
    ['identity', 'identity'],
    ['deflate', 'deflate'],
    ['gzip;q=0, br;q=0', 'gzip;q=0, br;q=0'],
    ['zstd', 'zstd'],
  ])('Accept-Encoding %s → identity', async (_label, accept) => {
    const g = await get(env.base, BIG, accept === undefined ? {} : { headers: { 'accept-encoding': accept } });
    expect(g.status).toBe(200);
    expect(g.header('content-encoding')).toBeUndefined();
    expect(g.header('vary')).toMatch(/accept-encoding/i);
    expect(g.text).toBe(BIG_BODY);
  });

  it('the ETag does not depend on the encoding', async () => {
    const a = await get(env.base, BIG);
    const b = await get(env.base, BIG, { headers: { 'accept-encoding': 'gzip' } });
    const c = await get(env.base, BIG, { headers: { 'accept-encoding': 'br' } });
    expect(b.header('etag')).toBe(a.header('etag'));
    expect(c.header('etag')).toBe(a.header('etag'));
  });

  it('a MISS asked with gzip decodes to the upstream body', async () => {
    const f = fixture('block/list');
    const g = await get(env.base, `/block/list?${f.query}`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(g.header('x-cache')).toBe('MISS');
    expect(g.header('vary')).toMatch(/accept-encoding/i);
    expect(decode(g)).toBe(expectedBody(f.body));
  });

  it.each(['gzip', 'br'])(
    'a first answer to a %s client goes out compressed, and so does the hit after it',
    async (enc) => {
      // A key no other test asks (a ~2 KB body): the answer is a MISS, then the next request a HIT.
      const f = fixture('block/list');
      const url = `/block/list?page=${enc === 'gzip' ? 5 : 6}&page_size=2`;
      const miss = await get(env.base, url, { headers: { 'accept-encoding': enc } });
      expect(miss.header('x-cache')).toBe('MISS');
      expect(miss.header('content-encoding')).toBe(enc);
      expect(withoutStamps(decode(miss))).toBe(withoutStamps(expectedBody(f.body)));
      const hit = await get(env.base, url, { headers: { 'accept-encoding': enc } });
      expect(hit.header('x-cache')).toBe('HIT');
      expect(hit.header('content-encoding')).toBe(enc);
      expect(withoutStamps(decode(hit))).toBe(withoutStamps(expectedBody(f.body)));
    },
  );

  it('a compressed hit of a re-stamped body decodes to the current stamps', async () => {
    const f = fixture('tx/list');
    const url = `/tx/list?${f.query}`;
    await get(env.base, url);
    const id = await get(env.base, url);
    for (const encoding of ['gzip', 'br']) {
      // Within the entry's 3 s: a hit, stamped with the time it is served, not the time it was fetched.
      now += 1000;
      const g = await get(env.base, url, { headers: { 'accept-encoding': encoding } });
      expect(g.header('x-cache')).toBe('HIT');
      const text = decode(g);
      expect(withoutStamps(text)).toBe(withoutStamps(id.text));
      expect(Number(/"server_timestamp":(\d+)/.exec(text)?.[1])).toBe(now);
    }
  });

  it('errors are never compressed into the cache or sent with a wrong encoding', async () => {
    const g = await get(env.base, '/tx/list?page=0', { headers: { 'accept-encoding': 'gzip' } });
    expect(g.status).toBe(400);
    const text = decode(g);
    expect(JSON.parse(text)).toMatchObject({ data: null });
  });
});
