/**
 * POST /batch: each item validated and resolved like a direct request (same
 * envelope bytes, shared cache), bad items answered in place, limits on the
 * batch, and rate limiting per item.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { withoutStamps } from '../helpers/proxy-kit.js';
import { get, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

interface Item {
  request: string;
  status: number;
  cache: string;
  body: { code: number; msg: string; data: unknown };
}

const post = (base: string, body: unknown, raw = false) =>
  get(base, '/batch', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? String(body) : JSON.stringify(body),
  });

describe('POST /batch', () => {
  it('mixed valid and invalid items: each answered like a direct request', async () => {
    env = await startPagesEnv();
    const h = env.sim.chain.head() - 30;
    const requests = [
      'block/max',
      `/block/detail?h=${h}`,
      'tx/list?page=x',
      'no/such',
      42,
      'block/detail?h=99999999',
      'block/max',
    ];
    const g = await post(env.base, { requests });
    expect(g.status).toBe(200);
    const items = (g.json as { code: number; data: Item[] }).data;
    expect(items.map((i) => i.status)).toEqual([200, 200, 400, 404, 400, 404, 200]);
    expect(items[2]!.body.msg).toMatch(/^invalid parameter page:/);
    expect(items[3]!.body.code).toBe(4040);
    expect(items[4]!.request).toBe('42');
    expect(items[5]!.body).toEqual({ code: 404, msg: 'not found', data: null });
    // Same bytes as the direct answers (the batch filled the shared cache).
    const direct = await get(env.base, `/block/detail?h=${h}`);
    expect(direct.header('x-cache')).toBe('HIT');
    const text = g.text;
    expect(withoutStamps(text)).toContain(withoutStamps(direct.text));
    expect(text).toContain(`"height":${env.sim.chain.head()}.0`);
    // The duplicate block/max was one upstream request.
    expect(env.count('block/detail')).toBe(2);
    expect(env.count('block/max')).toBe(1);
    expect(env.count('tx/list')).toBe(0);
  });

  it('a slow item answers 504 in place at the request timeout; the others are not held', async () => {
    env = await startPagesEnv({ limits: { requestTimeoutMs: 300 } });
    env.faults.set('nax/summary', { latencyMs: 3000 });
    const t0 = performance.now();
    const g = await post(env.base, { requests: ['nax/summary', 'chain/summary'] });
    expect(performance.now() - t0).toBeLessThan(2500);
    const items = (g.json as { data: Item[] }).data;
    expect(items.map((i) => [i.status, i.cache])).toEqual([
      [504, 'ERROR'],
      [200, 'MISS'],
    ]);
    expect(items[0]!.body.code).toBe(5041);
  });

  it('limits: at most MAX_BATCH_ITEMS items, a JSON body with a requests array', async () => {
    env = await startPagesEnv({ limits: { maxBatchItems: 3 } });
    env.mark();
    const cases: Array<[unknown, boolean, string]> = [
      [
        { requests: ['block/max', 'block/max', 'block/max', 'block/max'] },
        false,
        'invalid parameter requests: expected 1 to 3 items, got 4',
      ],
      [{ requests: [] }, false, 'invalid parameter requests: expected 1 to 3 items, got 0'],
      [{ requests: 'block/max' }, false, 'invalid parameter requests: expected an array'],
      [{}, false, 'missing parameter requests'],
      ['{"requests": [', true, 'bad request'],
    ];
    for (const [body, raw, msg] of cases) {
      const g = await post(env.base, body, raw);
      expect(g.status, JSON.stringify(body)).toBe(400);
      expect((g.json as { msg: string }).msg.startsWith(msg), (g.json as { msg: string }).msg).toBe(true);
    }
    expect(env.count()).toBe(0);
    expect((await post(env.base, { requests: ['block/max', 'chain/summary', 'nax/summary'] })).status).toBe(200);
  });

  it('other methods get 405 naming POST', async () => {
    env = await startPagesEnv();
    const g = await get(env.base, '/batch');
    expect(g.status).toBe(405);
    expect(g.header('allow')).toBe('POST, OPTIONS');
  });

  it('every other method, those the batch route does not register included, gets 405 naming POST', async () => {
    env = await startPagesEnv();
    for (const method of ['GET', 'PUT', 'DELETE', 'TRACE', 'PROPFIND', 'LOCK', 'SEARCH', 'MKCALENDAR']) {
      const res = await request(`${env.base}/batch`, { method });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers['allow'], method).toBe('POST, OPTIONS');
      expect(await res.body.json(), method).toEqual({ code: 4050, msg: 'method not allowed; use POST', data: null });
    }
    const pre = await get(env.base, '/batch', {
      method: 'OPTIONS',
      headers: { origin: 'https://explorer.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.header('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(env.count()).toBe(0);
  });

  it('rate limiting counts a batch per item', async () => {
    env = await startPagesEnv({ rateLimit: { enabled: true, max: 10, windowMs: 60_000 } });
    // 8 items: 8 of the 10 requests of the window.
    const ok = await post(env.base, { requests: Array.from({ length: 8 }, () => 'block/max') });
    expect(ok.status).toBe(200);
    expect((await get(env.base, '/block/max')).status).toBe(200);
    expect((await get(env.base, '/block/max')).status).toBe(200);
    const over = await get(env.base, '/block/max');
    expect(over.status).toBe(429);
    // A batch over the remaining budget is refused as a whole, with the rate-limit envelope.
    const refused = await post(env.base, { requests: ['block/max', 'chain/summary'] });
    expect(refused.status).toBe(429);
    expect((refused.json as { code: number }).code).toBe(4290);
  });

  it('a batch larger than the remaining budget is refused', async () => {
    env = await startPagesEnv({ rateLimit: { enabled: true, max: 10, windowMs: 60_000 } });
    expect((await post(env.base, { requests: Array.from({ length: 6 }, () => 'block/max') })).status).toBe(200);
    env.mark();
    const g = await post(env.base, { requests: Array.from({ length: 6 }, () => 'chain/summary') });
    expect(g.status).toBe(429);
    expect(env.count()).toBe(0);
  });
});
