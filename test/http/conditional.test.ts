/**
 * Conditional requests and HEAD: a weak ETag stable across re-stamping, 304 on
 * a matching If-None-Match (exact, weak/strong spelling, in a list, `*`), 200
 * otherwise; HEAD answers with the GET's headers (content-length included) and
 * no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectedBody,
  fixture,
  get,
  routes,
  sendJson,
  startEnv,
  type Env,
  settableClock,
} from '../helpers/proxy-kit.js';
import { waitFor } from '../helpers/fake-upstream.js';

const URL_ = `/tx/listByAddress?${fixture('tx/listByAddress').query}`;
const STATIC = `/token/detail?token=NAX`;

describe('ETag and 304', () => {
  const clock = settableClock();
  let env: Env;
  let etag = '';
  beforeAll(async () => {
    env = await startEnv({ clock: clock.now });
    const g = await get(env.base, URL_);
    expect(g.status).toBe(200);
    etag = g.header('etag') ?? '';
  });
  afterAll(async () => {
    await env.close();
  });

  it('a 200 carries a weak ETag', () => {
    expect(etag).toMatch(/^W\/"[^"]+"$/);
  });

  it('the ETag is stable across hits and re-stamping', async () => {
    clock.advance(1_500);
    const g = await get(env.base, URL_);
    expect(g.header('x-cache')).toBe('HIT');
    expect(g.header('etag')).toBe(etag);
  });

  it.each([
    ['the exact ETag', () => etag],
    ['the strong spelling of the weak ETag', () => etag.slice(2)],
    ['a list containing it', () => `W/"nope", ${etag}, "other"`],
    ['*', () => '*'],
  ])('If-None-Match with %s → 304 without body', async (_label, value) => {
    const g = await get(env.base, URL_, { headers: { 'if-none-match': value() } });
    expect(g.status).toBe(304);
    expect(g.raw.length).toBe(0);
    expect(g.header('etag')).toBe(etag);
    expect(g.header('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(g.header('vary')).toMatch(/accept-encoding/i);
    expect(g.header('access-control-allow-origin')).toBe('*');
  });

  it('a non-matching If-None-Match gets the full 200', async () => {
    const g = await get(env.base, URL_, { headers: { 'if-none-match': 'W/"something-else"' } });
    expect(g.status).toBe(200);
    expect(g.raw.length).toBeGreaterThan(0);
  });

  it('a different resource has a different ETag; equal content has an equal ETag across keys', async () => {
    const other = await get(env.base, STATIC);
    expect(other.header('etag')).not.toBe(etag);
    const cross = await get(env.base, STATIC, { headers: { 'if-none-match': etag } });
    expect(cross.status).toBe(200);
  });

  it('If-None-Match on a cold key: a 200 (MISS) when it does not match, then 304 for the returned tag', async () => {
    const url = '/contracts?page=4';
    const first = await get(env.base, url, { headers: { 'if-none-match': 'W/"x"' } });
    expect(first.status).toBe(200);
    expect(first.header('x-cache')).toBe('MISS');
    const cond = await get(env.base, url, { headers: { 'if-none-match': first.header('etag')! } });
    expect(cond.status).toBe(304);
    expect(cond.header('x-cache')).toBe('HIT');
  });
});

describe('HEAD', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  it('HEAD on a cold key: GET headers, no body, one upstream GET; then GET is a HIT', async () => {
    const url = `/nax/profits?${fixture('nax/profits').query}`;
    const head = await get(env.base, url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.raw.length).toBe(0);
    expect(head.header('x-cache')).toBe('MISS');
    expect(head.header('content-type')).toMatch(/^application\/json/);
    expect(head.header('etag')).toMatch(/^W\//);
    expect(Number(head.header('content-length'))).toBe(Buffer.byteLength(expectedBody(fixture('nax/profits').body)));
    expect(env.up.requests.filter((r) => r.url.startsWith('/nax/profits')).map((r) => r.method)).toEqual(['GET']);
    const g = await get(env.base, url);
    expect(g.header('x-cache')).toBe('HIT');
    expect(g.text).toBe(expectedBody(fixture('nax/profits').body));
    expect(g.header('etag')).toBe(head.header('etag'));
  });

  it('HEAD on a hit mirrors the GET headers', async () => {
    const url = `/holders?${fixture('holders').query}`;
    const g = await get(env.base, url);
    const h = await get(env.base, url, { method: 'HEAD' });
    expect(h.status).toBe(200);
    expect(h.raw.length).toBe(0);
    expect(h.header('x-cache')).toBe('HIT');
    for (const name of ['content-type', 'etag', 'vary', 'access-control-allow-origin', 'cache-control']) {
      expect(h.header(name), name).toBe(g.header(name));
    }
    expect(Number(h.header('content-length'))).toBe(g.raw.length);
  });

  it('HEAD with Accept-Encoding gzip advertises the encoded length', async () => {
    const url = '/nax/summary';
    // Warm the entry and wait for its compressed variants (attached shortly after the miss).
    await waitFor(
      async () =>
        (await get(env.base, url, { headers: { 'accept-encoding': 'gzip' } })).header('content-encoding') === 'gzip',
      5000,
      'gzip variant',
    );
    const g = await get(env.base, url, { headers: { 'accept-encoding': 'gzip' } });
    const h = await get(env.base, url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect(h.header('content-encoding')).toBe('gzip');
    expect(h.raw.length).toBe(0);
    expect(h.header('content-encoding')).toBe(g.header('content-encoding'));
    expect(Number(h.header('content-length'))).toBe(g.raw.length);
  });

  it('HEAD with a matching If-None-Match → 304', async () => {
    const url = '/chain/summary';
    const g = await get(env.base, url);
    const h = await get(env.base, url, { method: 'HEAD', headers: { 'if-none-match': g.header('etag')! } });
    expect(h.status).toBe(304);
  });
});

describe('ETag without the volatile stamps', () => {
  const clock = settableClock();
  let env: Env;
  let calls = 0;
  let height = 4842503;
  const NRC20 = `/tx/nrc20?${fixture('tx/nrc20').query}`;
  // Every upstream answer carries new stamps, as the real service's do.
  const restamped = (body: string): string => {
    const now = 1_595_149_022_681 + ++calls * 1_234;
    return body
      .replace(/"currentTimestamp":\d+/g, `"currentTimestamp":${now}`)
      .replace(/"timeDiff":(\d+)/g, (_m, d: string) => `"timeDiff":${Number(d) + calls * 1_234}`);
  };
  beforeAll(async () => {
    env = await startEnv({
      clock: clock.now,
      handler: routes({
        'block/max': (_req, res) =>
          sendJson(
            res,
            200,
            `{"code":0,"msg":"success","data":{"height":${height}.0,` +
              `"server_timestamp":${1_595_164_447_597 + ++calls}}}`,
          ),
        'tx/nrc20': (_req, res) => sendJson(res, 200, restamped(fixture('tx/nrc20').body)),
      }),
    });
  });
  afterAll(async () => {
    await env.close();
  });

  it('an unchanged block/max refetched keeps its ETag and answers If-None-Match with 304', async () => {
    const first = await get(env.base, '/block/max');
    expect(first.status).toBe(200);
    const etag = first.header('etag')!;
    const before = env.count('/block/max');
    clock.advance(600_000);
    const again = await get(env.base, '/block/max', { headers: { 'if-none-match': etag } });
    expect(again.header('x-cache')).toBe('MISS');
    expect(env.count('/block/max')).toBeGreaterThan(before);
    expect(again.status).toBe(304);
    expect(again.header('etag')).toBe(etag);
  });

  it('a refetched list whose items only changed their stamps keeps its ETag, in every encoding', async () => {
    const first = await get(env.base, NRC20);
    const etag = first.header('etag')!;
    clock.advance(600_000);
    const refetched = await get(env.base, NRC20);
    expect(refetched.header('x-cache')).toBe('MISS');
    expect(refetched.text).not.toBe(first.text);
    expect(refetched.header('etag')).toBe(etag);
    await waitFor(
      async () =>
        (await get(env.base, NRC20, { headers: { 'accept-encoding': 'gzip' } })).header('content-encoding') === 'gzip',
      5000,
      'gzip variant',
    );
    clock.advance(1_500);
    const gz = await get(env.base, NRC20, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.header('x-cache')).toBe('HIT');
    expect(gz.header('etag')).toBe(etag);
    const cond = await get(env.base, NRC20, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    expect(cond.status).toBe(304);
    expect(cond.raw.length).toBe(0);
  });

  it('changed content gets a new ETag: If-None-Match with the old one gets a 200', async () => {
    const old = (await get(env.base, '/block/max')).header('etag')!;
    height += 1;
    clock.advance(600_000);
    const g = await get(env.base, '/block/max', { headers: { 'if-none-match': old } });
    expect(g.status).toBe(200);
    expect(g.header('etag')).not.toBe(old);
  });
});
