/**
 * The passthrough cache on real sockets: stand-in backends that send no CORS
 * and no Cache-Control, no-store, a cookie, failures; the proxy's CORS and
 * preflights, X-Cache on every answer, ignored parameters, single flight, the
 * `head` and duration policies, stale-if-error, 304, gzip, HEAD.
 */
import { gunzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChainFake, type ChainFake } from '../helpers/chain-fake.js';
import { fakeClock } from '../helpers/clock.js';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';
import type { ProxyHandle } from '../../src/app.js';
import { passConfig, raw } from './kit.js';

const HEAD = 5000;
const clock = fakeClock(Date.now());
let chain: ChainFake;
let backend: FakeUpstream;
let proxy: ProxyHandle;
let release: () => void = () => {};
let failing = false;
const rows = (n: number) =>
  JSON.stringify({ rows: Array.from({ length: n }, (_, i) => ({ i, hash: `n1${'x'.repeat(20)}${i}` })) });
const BIG = rows(50);
const HUGE = rows(300);

function send(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

beforeAll(async () => {
  chain = await startChainFake(HEAD);
  backend = await startFakeUpstream((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!.replace(/^\/(explorer|open|dur)/, '');
    const n = backend.count(req.url!.split('?')[0]!);
    if (path === '/plain')
      return send(res, 200, { 'access-control-allow-origin': 'https://other.example' }, `{"n":${n}}`);
    if (path === '/nostore') return send(res, 200, { 'cache-control': 'no-store' }, `{"n":${n}}`);
    if (path === '/private') return send(res, 200, { 'cache-control': 'private, max-age=60' }, `{"n":${n}}`);
    if (path === '/cookie') return send(res, 200, { 'set-cookie': 'session=abc; Path=/' }, `{"n":${n}}`);
    if (path === '/fresh') return send(res, 200, { 'cache-control': 'max-age=30' }, `{"n":${n}}`);
    if (path === '/html') return send(res, 200, { 'content-type': 'text/html; charset=utf-8' }, `<p>${n}</p>`);
    if (path === '/big') return send(res, 200, {}, BIG);
    if (path === '/huge') return send(res, 200, {}, HUGE);
    if (path === '/sized') return send(res, 200, { 'content-length': String(HUGE.length) }, HUGE);
    if (path === '/missing') return send(res, 404, {}, '{"error":"no such tx"}');
    if (path === '/held') {
      release = () => send(res, 200, {}, `{"n":${n}}`);
      return;
    }
    if (path === '/flaky') {
      if (!failing) return send(res, 200, {}, `{"n":${n}}`);
      return send(res, 500, {}, '{"error":"backend down"}');
    }
    if (path === '/reset') return void res.socket?.destroy();
    if (path === '/busy')
      return send(res, 503, { 'x-legacy': 'yes', 'access-control-allow-origin': 'https://x' }, '{}');
    return send(res, 200, {}, `{"n":${n},"url":${JSON.stringify(req.url)}}`);
  });
  proxy = await startTestProxy(
    [chain.url],
    {
      passthrough: passConfig(
        [
          { prefix: '/explorer', target: backend.url },
          { prefix: '/open', target: backend.url },
          { prefix: '/dur', target: backend.url },
        ],
        {
          cache: { '/explorer': { kind: 'head' }, '/dur': { kind: 'ttl', ms: 1000 } },
          ignoreParams: ['timestamp'],
          cacheMaxBodyBytes: 4096,
        },
      ),
    },
    clock.now,
  );
  // The proxy learns the head.
  expect((await raw(proxy.url, '/block/max')).status).toBe(200);
  expect(proxy.tracker.bestHead()).toBe(HEAD);
}, 30_000);

afterAll(async () => {
  await proxy?.close();
  await backend?.close();
  await chain?.close();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  raw(proxy.url, path, { headers, method });
const body = (r: { body: Buffer }) => JSON.parse(r.body.toString()) as { n: number; url?: string };

/** The proxy sees block `height` (its block/max entry dropped and asked again). */
async function newBlock(height: number): Promise<void> {
  chain.head.value = height;
  await proxy.memory.delete('block/max');
  await get('/block/max');
  expect(proxy.tracker.bestHead()).toBe(height);
}

describe('passthrough answers are browser-ready', () => {
  it("no CORS, no Cache-Control, no policy: streamed, BYPASS, the proxy's CORS in place of the backend's", async () => {
    const before = backend.count('/open/plain');
    for (let i = 0; i < 2; i++) {
      const r = await get('/open/plain', { origin: 'https://app.example' });
      expect(r.status).toBe(200);
      expect(r.headers['x-cache']).toBe('BYPASS');
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-expose-headers']).toContain('X-Cache');
    }
    expect(backend.count('/open/plain')).toBe(before + 2);
  });

  it('HEAD on the streamed way: the headers, no body', async () => {
    const r = await get('/open/plain', {}, 'HEAD');
    expect([r.status, r.headers['x-cache'], r.headers['content-type'], r.body.length]).toEqual([
      200,
      'BYPASS',
      'application/json',
      0,
    ]);
  });

  it('OPTIONS preflights are answered by the proxy, never forwarded', async () => {
    const before = backend.requests.length;
    for (const path of ['/explorer/tx/latest', '/open/anything?x=1']) {
      const r = await get(
        path,
        {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'content-type',
        },
        'OPTIONS',
      );
      expect(r.status).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect(r.headers['access-control-allow-headers']).toMatch(/Content-Type/);
      expect(r.headers['x-cache']).toBe('BYPASS');
    }
    expect(backend.requests.length).toBe(before);
  });
});

describe('the passthrough cache', () => {
  it('timestamp= is dropped from the key and from the forwarded request', async () => {
    const a = await get('/explorer/tx/latest?timestamp=1700000000001&page=1');
    const b = await get('/explorer/tx/latest?timestamp=1700000000002&page=1');
    expect([a.headers['x-cache'], b.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(body(b)).toEqual(body(a));
    expect(body(a).url).toBe('/explorer/tx/latest?page=1');
    expect(backend.count('/explorer/tx/latest')).toBe(1);
    expect(a.headers['access-control-allow-origin']).toBe('*');
    expect(a.headers['content-type']).toBe('application/json');
    expect(b.headers['x-request-id']).toBeDefined();
  });

  it('counts each answer once per prefix and X-Cache', async () => {
    const count = async (result: string): Promise<number> => {
      const text = await (await fetch(`${proxy.url}/metrics`)).text();
      const m = new RegExp(
        `^chainproxy_passthrough_cache_total\\{route="/explorer",result="${result}"\\} (\\d+)`,
        'm',
      ).exec(text);
      return Number(m?.[1] ?? 0);
    };
    const [hits, misses] = [await count('HIT'), await count('MISS')];
    await get('/explorer/counted');
    await get('/explorer/counted');
    await get('/explorer/counted');
    expect([await count('HIT'), await count('MISS')]).toEqual([hits + 2, misses + 1]);
  });

  it('N concurrent cold requests cost the backend one request', async () => {
    const answers = Promise.all(Array.from({ length: 10 }, () => get('/explorer/held?timestamp=1')));
    await waitFor(
      async () => {
        const text = await (await fetch(`${proxy.url}/metrics`)).text();
        return /^chainproxy_singleflight_joins_total\{endpoint="other"\} 9$/m.test(text);
      },
      20_000,
      '9 joins',
    );
    release();
    const rs = await answers;
    expect(backend.count('/explorer/held')).toBe(1);
    expect(new Set(rs.map((r) => r.body.toString()))).toEqual(new Set(['{"n":1}']));
    expect(rs.map((r) => r.headers['x-cache']).sort()).toEqual(Array(10).fill('MISS'));
  });

  it('head: kept until the proxy sees a new block (then fetched once more), at most 60 s', async () => {
    const first = await get('/explorer/nasinfo');
    expect(first.headers['x-cache']).toBe('MISS');
    clock.advance(30_000);
    expect((await get('/explorer/nasinfo')).headers['x-cache']).toBe('HIT');
    expect(backend.count('/explorer/nasinfo')).toBe(1);
    await newBlock(HEAD + 1);
    const after = await get('/explorer/nasinfo');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(body(after).n).toBe(2);
    expect((await get('/explorer/nasinfo')).headers['x-cache']).toBe('HIT');
    clock.advance(61_000);
    expect((await get('/explorer/nasinfo')).headers['x-cache']).toBe('MISS');
    expect(backend.count('/explorer/nasinfo')).toBe(3);
  });

  it('never stores no-store, private or cookie-setting answers, whatever the policy; no cookie relayed', async () => {
    for (const path of ['/explorer/nostore', '/explorer/private', '/explorer/cookie', '/dur/nostore']) {
      const before = backend.count(path);
      for (let i = 0; i < 2; i++) {
        const r = await get(path);
        expect(r.status).toBe(200);
        expect(r.headers['x-cache'], path).toBe('BYPASS');
        expect(r.headers['set-cookie']).toBeUndefined();
        expect(r.headers['access-control-allow-origin']).toBe('*');
      }
      expect(backend.count(path), path).toBe(before + 2);
    }
  });

  it("no policy: the backend's max-age keeps it", async () => {
    expect((await get('/open/fresh')).headers['x-cache']).toBe('MISS');
    const hit = await get('/open/fresh');
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.headers['cache-control']).toMatch(/max-age=(29|30)/);
    expect(backend.count('/open/fresh')).toBe(1);
  });

  it('keeps a 404 and the Content-Type the backend gave', async () => {
    expect((await get('/explorer/missing')).status).toBe(404);
    const again = await get('/explorer/missing');
    expect([again.status, again.headers['x-cache']]).toEqual([404, 'HIT']);
    await get('/explorer/html');
    const html = await get('/explorer/html');
    expect(html.headers['x-cache']).toBe('HIT');
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body.toString()).toBe('<p>1</p>');
  });

  it('ETag and 304; gzip from the compressed variant; HEAD from the same entry', async () => {
    // A MISS to a gzip client waits for the variants (an identity client's does not): the HITs after it have them.
    const a = await get('/explorer/big', { 'accept-encoding': 'gzip' });
    expect(a.headers['content-encoding']).toBe('gzip');
    const etag = a.headers['etag']!;
    expect(etag).toMatch(/^W\//);
    const notModified = await get('/explorer/big', { 'if-none-match': etag });
    expect([notModified.status, notModified.body.length]).toEqual([304, 0]);
    const gz = await get('/explorer/big', { 'accept-encoding': 'gzip' });
    expect(gz.headers['x-cache']).toBe('HIT');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(BIG);
    const head = await get('/explorer/big', {}, 'HEAD');
    expect([head.status, head.headers['x-cache'], head.body.length]).toEqual([200, 'HIT', 0]);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(BIG)));
    expect(backend.count('/explorer/big')).toBe(1);
  });

  it('a body over the bound is streamed uncached and counted; its key then goes straight to the stream', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await get('/explorer/huge');
      expect([r.status, r.headers['x-cache'], r.body.toString()]).toEqual([200, 'BYPASS', HUGE]);
    }
    const text = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(text).toMatch(/^chainproxy_passthrough_too_big_total\{route="\/explorer"\} 1$/m);
    // The first: the cache's fetch, cut at the bound, then the stream; the second: the stream alone.
    expect(backend.count('/explorer/huge')).toBe(3);
  });

  it('a body announced over the bound (Content-Length) is streamed uncached; the proxy keeps serving', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await get('/explorer/sized');
      expect([r.status, r.headers['x-cache'], r.body.toString()]).toEqual([200, 'BYPASS', HUGE]);
    }
    expect((await get('/explorer/plain')).status).toBe(200);
    expect(backend.count('/explorer/sized')).toBe(3);
  });

  it('a request with credentials bypasses the cache, on the pre-router path too (a known hit URL)', async () => {
    await get('/explorer/creds');
    expect((await get('/explorer/creds')).headers['x-cache']).toBe('HIT');
    expect((await get('/explorer/creds')).headers['x-cache']).toBe('HIT');
    const before = backend.count('/explorer/creds');
    const r = await get('/explorer/creds', { authorization: 'Bearer x' });
    expect(r.headers['x-cache']).toBe('BYPASS');
    expect((await get('/explorer/creds', { cookie: 'a=1' })).headers['x-cache']).toBe('BYPASS');
    expect(backend.count('/explorer/creds')).toBe(before + 2);
  });
});

describe('passthrough failures', () => {
  it('a duration policy: stale while revalidating, then stale if the backend fails', async () => {
    failing = false;
    expect(body(await get('/dur/flaky')).n).toBe(1);
    clock.advance(1500);
    const swr = await get('/dur/flaky');
    expect([swr.headers['x-cache'], body(swr).n]).toEqual(['STALE', 1]);
    // The background refresh stored: a fresh hit again.
    await waitFor(async () => (await get('/dur/flaky')).headers['x-cache'] === 'HIT', 20_000, 'the refresh');
    expect(backend.count('/dur/flaky')).toBe(2);
    clock.advance(5000);
    failing = true;
    const sie = await get('/dur/flaky');
    expect([sie.status, sie.headers['x-cache']]).toEqual([200, 'STALE']);
    expect(body(sie).n).toBe(2);
  });

  it("without a copy: the backend's 5xx relayed, a reset a 502 envelope", async () => {
    failing = true;
    const r = await get('/dur/flaky?other=1');
    expect([r.status, r.headers['x-cache']]).toEqual([500, 'BYPASS']);
    expect(r.body.toString()).toBe('{"error":"backend down"}');
    const busy = await get('/dur/busy');
    expect([busy.status, busy.headers['x-cache'], busy.headers['retry-after']]).toEqual([503, 'BYPASS', '1']);
    expect([busy.headers['x-legacy'], busy.headers['access-control-allow-origin']]).toEqual(['yes', '*']);
    expect(busy.headers['cache-control']).toBe('no-store');
    const reset = await get('/dur/reset');
    expect(reset.status).toBe(502);
    expect(reset.headers['x-cache']).toBe('ERROR');
    expect(reset.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('passthrough purge', () => {
  const purge = (query: string) => raw(proxy.url, `/purge?${query}`, { method: 'POST' });
  const data = (r: { body: Buffer }) => (JSON.parse(r.body.toString()) as { data: { memory: number } }).data;

  it('by prefix: every answer under it is fetched again; other prefixes are kept', async () => {
    for (const p of ['/explorer/p1', '/explorer/deep/p2?x=1', '/open/fresh']) await get(p);
    for (const p of ['/explorer/p1', '/explorer/deep/p2?x=1', '/open/fresh'])
      expect((await get(p)).headers['x-cache'], p).toBe('HIT');
    const r = await purge('tag=prefix:/explorer');
    expect(r.status).toBe(200);
    expect(data(r).memory).toBeGreaterThanOrEqual(2);
    clock.advance(1);
    expect((await get('/explorer/p1')).headers['x-cache']).toBe('MISS');
    expect((await get('/explorer/deep/p2?x=1')).headers['x-cache']).toBe('MISS');
    expect((await get('/open/fresh')).headers['x-cache']).toBe('HIT');
    expect(backend.count('/explorer/p1')).toBe(2);
  });

  it('by a path under a prefix, and by key (ignored parameters as in the cache key)', async () => {
    await get('/explorer/deep/p3');
    await get('/explorer/p4?page=1&timestamp=5');
    const sub = await purge('tag=prefix:/explorer/deep/');
    expect(data(sub).memory).toBeGreaterThanOrEqual(1);
    const key = await purge(`key=${encodeURIComponent('/explorer/p4?page=1&timestamp=99')}`);
    expect([key.status, data(key).memory]).toEqual([200, 1]);
    clock.advance(1);
    expect((await get('/explorer/deep/p3')).headers['x-cache']).toBe('MISS');
    expect((await get('/explorer/p4?page=1')).headers['x-cache']).toBe('MISS');
    expect((await purge('tag=prefix:explorer')).status).toBe(400);
  });
});

describe('passthrough status', () => {
  it('/status has a line per prefix: backend, policy, answers by X-Cache', async () => {
    const r = await get('/status');
    const lines = (JSON.parse(r.body.toString()) as { data: { passthrough: Array<Record<string, unknown>> } }).data
      .passthrough;
    expect(lines.map((l) => [l.prefix, l.policy])).toEqual([
      ['/explorer', 'head'],
      ['/open', 'backend'],
      ['/dur', '1000ms'],
    ]);
    const explorer = lines[0]!.answers as Record<string, number>;
    expect(explorer.HIT).toBeGreaterThan(0);
    expect(explorer.MISS).toBeGreaterThan(0);
    expect(lines[0]!.backend).toBe(backend.url);
  });
});
