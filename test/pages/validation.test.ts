/**
 * Page parameters are validated like the endpoints' own: a 400 envelope naming
 * the parameter and no upstream request; unknown pages 404, other methods 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settableClock } from '../helpers/proxy-kit.js';
import { get, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv;
beforeAll(async () => {
  env = await startPagesEnv({}, settableClock().now); // nothing expires during the test
});
afterAll(async () => {
  await env.close();
});

const CASES: Array<[string, number, string]> = [
  ['/pages/block', 4002, 'missing parameter h'],
  ['/pages/block?h=abc', 4001, 'invalid parameter h'],
  ['/pages/block?h=1&h=2', 4003, 'duplicated parameter h'],
  ['/pages/tx', 4002, 'missing parameter hash'],
  ['/pages/tx?hash=zz', 4001, 'invalid parameter hash'],
  ['/pages/address?address=nope', 4001, 'invalid parameter address'],
  ['/pages/token', 4002, 'missing parameter token/contract'],
  ['/pages/token?token=NAX&contract=n1etmdwczuAUCnMMvpGasfi8kwUbb2ddvRJ', 4001, 'invalid parameter token/contract'],
  ['/pages/token?token=N%20X', 4001, 'invalid parameter token'],
  ['/pages/home?page_size=500', 4001, 'invalid parameter page_size: expected an integer from 1 to 100'],
  ['/pages/home?page_size=0', 4001, 'invalid parameter page_size'],
  ['/pages/home?page_size=%0a', 4001, 'invalid parameter page_size'],
];

describe('page parameter validation', () => {
  it.each(CASES)('%s → %i %s, no upstream request', async (path, code, msg) => {
    env.mark();
    const g = await get(env.base, path);
    expect(g.status).toBe(400);
    const body = g.json as { code: number; msg: string; data: unknown };
    expect(body.code).toBe(code);
    expect(body.msg.startsWith(msg)).toBe(true);
    expect(body.data).toBeNull();
    expect(g.header('cache-control')).toBe('no-store');
    expect(env.count()).toBe(0);
  });

  it('unknown parameters are dropped (same page, same cache entry)', async () => {
    const a = await get(env.base, '/pages/home?page_size=3');
    const b = await get(env.base, '/pages/home?utm=x&page_size=3');
    expect(b.header('x-cache')).toBe('HIT');
    expect(b.header('etag')).toBe(a.header('etag'));
  });

  it('an unknown page is a 404 envelope; POST on a page is a 405', async () => {
    const g = await get(env.base, '/pages/nope');
    expect(g.status).toBe(404);
    expect((g.json as { code: number }).code).toBe(4040);
    const p = await get(env.base, '/pages/home', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(p.status).toBe(405);
    expect(p.header('allow')).toContain('GET');
  });

  it('HEAD gives the headers without a body', async () => {
    const g = await get(env.base, '/pages/home', { method: 'HEAD' });
    expect(g.status).toBe(200);
    expect(g.raw.length).toBe(0);
    expect(Number(g.header('content-length'))).toBeGreaterThan(100);
  });
});
