/**
 * Everything that is not a catalogue GET/HEAD: other methods on known paths →
 * 405 envelope with `Allow`; unknown paths → 404 envelope; OPTIONS → 204 CORS
 * preflight; CORS header on answers. None of it reaches the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, get, startEnv, type Env } from '../helpers/proxy-kit.js';

describe('methods, unknown paths and CORS', () => {
  let env: Env;
  let baseline = 0;
  beforeAll(async () => {
    env = await startEnv();
    baseline = env.count();
  });
  afterAll(async () => {
    await env.close();
  });

  it.each([
    ['POST', '/tx/list', undefined],
    ['POST', '/block/max', '{"page":1}'],
    ['PUT', '/tx/detail?hash=eb3c8d848679ad1786d5986da48bcc5d5732141fd6fccde0a9a3bfd78ae1d970', undefined],
    ['DELETE', '/block/list', undefined],
    ['PATCH', '/token/list', '{}'],
  ] as const)('%s %s → 405 envelope with Allow', async (method, url, body) => {
    const g = await get(env.base, url, {
      method,
      ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });
    expect(g.status).toBe(405);
    expect(g.header('allow')).toBe('GET, HEAD, OPTIONS');
    expect(g.header('content-type')).toMatch(/^application\/json/);
    expect(g.header('cache-control')).toBe('no-store');
    expect(g.header('access-control-allow-origin')).toBe('*');
    const e = envelope(g);
    expect(e.code).not.toBe(0);
    expect(e.data).toBeNull();
    expect(e.msg).toMatch(/method/i);
  });

  it.each(['/nope', '/tx', '/tx/list/', '/TX/LIST', '/tx/list/pending/extra', '/block//max', '/'])(
    'GET %s → 404 envelope',
    async (url) => {
      const g = await get(env.base, url);
      expect(g.status).toBe(404);
      expect(g.header('content-type')).toMatch(/^application\/json/);
      const e = envelope(g);
      expect(e.code).not.toBe(0);
      expect(e.data).toBeNull();
      expect(typeof e.msg).toBe('string');
    },
  );

  it('an unknown path is not echoed back unbounded', async () => {
    const g = await get(env.base, `/${'a'.repeat(5000)}`);
    expect(g.status).toBe(404);
    expect(envelope(g).msg.length).toBeLessThan(300);
  });

  it('OPTIONS preflight → 204 with CORS headers', async () => {
    const g = await get(env.base, '/tx/list?page=1', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://explorer.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    expect(g.status).toBe(204);
    expect(g.raw.length).toBe(0);
    expect(g.header('access-control-allow-origin')).toBe('*');
    expect(g.header('access-control-allow-methods')).toMatch(/GET/);
    expect(g.header('access-control-allow-methods')).toMatch(/HEAD/);
    expect(g.header('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match');
  });

  it('GET answers carry CORS headers for any origin and expose the cache headers', async () => {
    const g = await get(env.base, '/chain/summary', { headers: { origin: 'https://anything.example' } });
    expect(g.status).toBe(200);
    expect(g.header('access-control-allow-origin')).toBe('*');
    const exposed = (g.header('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of ['x-cache', 'age', 'etag']) expect(exposed).toContain(h);
    expect(g.header('x-chain-head')).toMatch(/^\d+$/);
  });

  it('none of the refused requests reached the upstream', () => {
    expect(env.up.requests.slice(baseline).map((r) => r.url)).toEqual(['/chain/summary']);
  });
});
