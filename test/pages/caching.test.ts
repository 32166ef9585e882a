/**
 * Composed caching: ETag from part versions and head, 304 on If-None-Match,
 * max-age = smallest remaining part TTL, immutable when every part is final,
 * and background recomposition (`pages.refresh`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressionsRunning } from '../../src/cache/restamped-variants.js';
import { touchedAt } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { settableClock, withoutStamps } from '../helpers/proxy-kit.js';
import { get, metaOf, pageKey, startPagesEnv, variantsStored, type PagesEnv } from './kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const CONFIGURED = {
  // Only final content: a final block and its transactions.
  finalblock: {
    params: { h: 'required' as const },
    parts: {
      block: { endpoint: 'block/detail' as const, query: { h: '{h}' }, required: true },
      txs: { endpoint: 'tx/list' as const, query: { block_height: '{h}' } },
    },
  },
  slow: {
    params: {},
    parts: { nax: { endpoint: 'nax/summary' as const }, tokens: { endpoint: 'token/list' as const } },
  },
};

describe('ETag and 304', () => {
  it('a hit keeps the ETag; If-None-Match answers 304 without a body or upstream request', async () => {
    const clock = settableClock();
    env = await startPagesEnv({ pages: CONFIGURED }, clock.now);
    const first = await get(env.base, '/pages/slow');
    const etag = first.header('etag')!;
    expect(etag).toMatch(/^W\/"p[\w-]+"$/);
    const hit = await get(env.base, '/pages/slow');
    expect(hit.header('x-cache')).toBe('HIT');
    expect(hit.header('etag')).toBe(etag);
    env.mark();
    const nm = await get(env.base, '/pages/slow', { headers: { 'if-none-match': etag } });
    expect(nm.status).toBe(304);
    expect(nm.raw.length).toBe(0);
    expect(env.count()).toBe(0);
    expect((await get(env.base, '/pages/slow', { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200);
  });

  it('a new head changes the ETag of a head-relative page (an old ETag gets 200)', async () => {
    env = await startPagesEnv();
    const a = await get(env.base, '/pages/home');
    env.sim.chain.advance(1);
    env.proxy.tracker.observeHead(env.sim.chain.head());
    const b = await get(env.base, '/pages/home');
    expect(b.header('etag')).not.toBe(a.header('etag'));
    expect((await get(env.base, '/pages/home', { headers: { 'if-none-match': a.header('etag')! } })).status).toBe(200);
  });

  it(
    'a recomposition with unchanged parts keeps the ETag: ' +
      'its content, not the head (If-None-Match then answers 304)',
    async () => {
      env = await startPagesEnv();
      const h0 = env.sim.chain.head();
      // An address the next block leaves alone: its parts are fetched again at the new head, unchanged.
      const next = new Set(touchedAt(1, h0 + 1).addresses);
      const address = [...touchedAt(1, h0).addresses].find((x) => !next.has(x))!;
      const path = `/pages/address?address=${address}`;
      const a = await get(env.base, path);
      expect(a.status).toBe(200);
      env.sim.chain.advance(1);
      await env.probe();
      env.mark();
      const b = await get(env.base, path);
      expect(b.header('x-cache')).toBe('MISS');
      expect(metaOf(b).head).toBe(h0 + 1);
      expect(env.count('address/info')).toBe(1);
      expect(b.header('etag')).toBe(a.header('etag'));
      const nm = await get(env.base, path, { headers: { 'if-none-match': a.header('etag')! } });
      expect(nm.status).toBe(304);
      expect(nm.header('x-cache')).toBe('HIT');
    },
  );
});

describe('Cache-Control', () => {
  it('max-age is the smallest remaining part TTL', async () => {
    const clock = settableClock();
    env = await startPagesEnv({ pages: CONFIGURED }, clock.now);
    const page = await get(env.base, '/pages/slow');
    expect(page.header('cache-control')).toBe('public, max-age=60'); // nax/summary 60 s, token/list 10 min
    clock.advance(25_000);
    const hit = await get(env.base, '/pages/slow');
    expect(hit.header('x-cache')).toBe('HIT');
    expect(hit.header('cache-control')).toBe('public, max-age=35');
    expect(hit.header('age')).toBe('25');
    expect((await get(env.base, '/pages/home')).header('cache-control')).toBe('public, max-age=1'); // block/max: 1 s
  });

  it('immutable when every part is final; never for a page with the head', async () => {
    env = await startPagesEnv({ pages: CONFIGURED }, settableClock().now);
    const final = env.sim.chain.head() - 100;
    await get(env.base, `/block/detail?h=${env.sim.chain.head() - 20}`); // teaches the proxy the final height
    const page = await get(env.base, `/pages/finalblock?h=${final}`);
    expect(page.status).toBe(200);
    expect(page.header('cache-control')).toBe('public, max-age=86400, immutable');
    expect(metaOf(page).parts['block']!.final).toBe(true);
    // A hit says so too (the memory tier's prebuilt header block).
    const hit = await get(env.base, `/pages/finalblock?h=${final}`);
    expect(hit.header('x-cache')).toBe('HIT');
    expect(hit.header('cache-control')).toBe('public, max-age=86400, immutable');
    const block = await get(env.base, `/pages/block?h=${final}`);
    expect(block.header('cache-control')).not.toContain('immutable');
    // A block that is not final yet: short, not immutable.
    const recent = await get(env.base, `/pages/finalblock?h=${env.sim.chain.head() - 2}`);
    expect(recent.header('cache-control')).toBe('public, max-age=5');
  });
});

/** Precise invalidation: an answer about a block awaiting finality is kept until it (the 10 min bound at most). */
const PRECISE = {
  mode: 'precise' as const,
  maxAgeMs: 60_000,
  listMaxAgeMs: 600_000,
  maxAgeGrowth: 1,
  maxAgeByEndpoint: {},
  readTimeoutMs: 10_000,
  pendingPollMs: 0,
};

describe('final parts', () => {
  it('a block awaiting finality is never final, even kept longer than a short final TTL', async () => {
    // Final TTL 5 min, below the 10 min safety bound that keeps a block's answer until its finality.
    const short = { finalTtlMs: 300_000 };
    env = await startPagesEnv(
      { pages: CONFIGURED, policies: { 'block/detail': short, 'tx/list': short }, invalidation: PRECISE },
      settableClock().now,
    );
    await get(env.base, `/block/detail?h=${env.sim.chain.head() - 20}`); // teaches the proxy the final height
    const recent = await get(env.base, `/pages/finalblock?h=${env.sim.chain.head() - 2}`);
    expect(recent.status).toBe(200);
    expect(metaOf(recent).parts['block']!.final).toBeUndefined();
    expect(recent.header('cache-control')).not.toContain('immutable');
    const final = await get(env.base, `/pages/finalblock?h=${env.sim.chain.head() - 100}`);
    expect(metaOf(final).parts['block']!.final).toBe(true);
  });
});

describe('background recomposition', () => {
  it('pages.refresh recomposes a page so the next request is a hit', async () => {
    env = await startPagesEnv({}, settableClock().now);
    await env.proxy.pages.refresh('home', { page_size: '4' });
    env.mark();
    const page = await get(env.base, '/pages/home?page_size=4');
    expect(page.header('x-cache')).toBe('HIT');
    expect(env.count()).toBe(0);
    // After a new head: refresh, then hit at the new head.
    env.sim.chain.advance(1);
    env.proxy.tracker.observeHead(env.sim.chain.head());
    await env.proxy.pages.refresh('home', { page_size: '4' });
    const again = await get(env.base, '/pages/home?page_size=4');
    expect(again.header('x-cache')).toBe('HIT');
    expect(metaOf(again).head).toBe(env.sim.chain.head());
  });
});

describe('compression', () => {
  it('gzip and brotli as negotiated, the same page as identity', async () => {
    env = await startPagesEnv({}, settableClock().now);
    const plain = await get(env.base, '/pages/home');
    expect(plain.header('content-encoding')).toBeUndefined();
    // Compressed in the background by the memory tier, like any entry.
    await variantsStored(env, pageKey(env, 'home'));
    for (const [accept, enc, unpack] of [
      ['gzip', 'gzip', gunzipSync],
      ['br, gzip', 'br', brotliDecompressSync],
    ] as const) {
      const g = await get(env.base, '/pages/home', { headers: { 'accept-encoding': accept } });
      expect(g.header('content-encoding')).toBe(enc);
      expect(g.header('vary')).toBe('Accept-Encoding');
      expect(g.raw.length).toBeLessThan(plain.raw.length / 2);
      expect(withoutStamps(unpack(g.raw).toString('utf8'))).toBe(withoutStamps(plain.text));
    }
  });

  it(
    'never on the request path: the first request in a new second ' +
      'gets the re-stamped identity bytes, later ones the compressed',
    async () => {
      const clock = settableClock();
      env = await startPagesEnv({ pages: CONFIGURED }, clock.now);
      await get(env.base, `/block/detail?h=${env.sim.chain.head() - 20}`); // teaches the proxy the final height
      const h = String(env.sim.chain.head() - 100);
      const key = pageKey(env, 'finalblock', `h=${h}`);
      expect((await get(env.base, `/pages/finalblock?h=${h}`)).header('x-cache')).toBe('MISS');
      await variantsStored(env, key);
      expect(env.proxy.memory.peek(key)!.entry.stamps.length).toBeGreaterThan(0);
      // At its composition instant: the variants the memory tier made.
      expect(
        (await get(env.base, `/pages/finalblock?h=${h}`, { headers: { 'accept-encoding': 'gzip' } })).header(
          'content-encoding',
        ),
      ).toBe('gzip');
      clock.advance(1000);
      const first = await get(env.base, `/pages/finalblock?h=${h}`, { headers: { 'accept-encoding': 'br' } });
      expect(first.header('x-cache')).toBe('HIT');
      expect(first.header('content-encoding')).toBeUndefined();
      expect((first.json as { data: { block: { server_timestamp: number } } }).data.block.server_timestamp).toBe(
        clock.now(),
      );
      await waitFor(() => compressionsRunning() === 0, 5000, 'background compression');
      const later = await get(env.base, `/pages/finalblock?h=${h}`, { headers: { 'accept-encoding': 'br' } });
      expect(later.header('content-encoding')).toBe('br');
      expect(brotliDecompressSync(later.raw).equals(first.raw)).toBe(true);
    },
  );
});

describe('the memory tier', () => {
  it('holds a composed page as an entry, charged to its byte bound, beside its parts', async () => {
    env = await startPagesEnv({}, settableClock().now);
    const key = pageKey(env, 'home', 'page_size=4');
    expect(key.startsWith('pages/home?')).toBe(true);
    const before = env.proxy.memory.bytes;
    const page = await get(env.base, '/pages/home?page_size=4');
    const m = env.proxy.memory.peek(key);
    expect(m?.entry.composed?.parts.map((p) => p.name)).toEqual(Object.keys(metaOf(page).parts));
    expect(m!.entry.etag).toBe(page.header('etag'));
    expect(env.proxy.memory.bytes - before).toBeGreaterThan(m!.size);
    await env.proxy.memory.delete(key);
    expect((await get(env.base, '/pages/home?page_size=4')).header('x-cache')).toBe('MISS');
  });
});
