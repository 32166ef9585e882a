/**
 * Operator routes answer non-operators exactly as an unknown path does, for
 * every method (same status, headers and bytes but for the echoed path); the
 * public OpenAPI document omits them while operators get the full one. One
 * CORS and method policy for every route: the same preflight (X-API-Key
 * allowed, /batch included) and a 405 with `Allow` naming the path's methods.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, type Env } from '../helpers/proxy-kit.js';

let env: Env;
beforeAll(async () => {
  // The balancer is loopback (trusted): X-Forwarded-For decides who is an operator.
  env = await startEnv({
    patch: { trustProxy: ['127.0.0.1'], rateLimit: { enabled: true, max: 10_000, windowMs: 60_000 } },
  });
});
afterAll(async () => env?.close());

const PUBLIC = { 'x-forwarded-for': '203.0.113.9' };
const OPERATOR = { 'x-forwarded-for': '10.1.2.3' };
const PREFLIGHT = {
  origin: 'https://explorer.example',
  'access-control-request-method': 'GET',
  'access-control-request-headers': 'x-api-key',
};

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function ask(path: string, method: string, headers: Record<string, string>): Promise<Answer> {
  const res = await request(`${env.base}${path}`, {
    method,
    headers,
    ...(method === 'POST' || method === 'PUT' ? { body: '{}' } : {}),
  });
  const body = await res.body.text();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (k !== 'date') out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  // Each answer has its own request id: compared by presence.
  if (out['x-request-id'] !== undefined) out['x-request-id'] = 'present';
  return { status: res.statusCode, headers: out, body };
}

const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'TRACE'];
// Each operator path beside an unknown path of the same length (the 404 message echoes the path).
const PAIRS: Array<[string, string]> = [
  ['/metrics', '/metricz'],
  ['/status', '/statuz'],
  ['/dashboard', '/dashboarz'],
  ['/dashboard/data.json', '/dashboard/data.jsoz'],
];

describe('operator routes for non-operators', () => {
  it.each(PAIRS)('%s answers every method exactly like an unknown path', async (path, unknown) => {
    for (const method of METHODS) {
      const headers = method === 'OPTIONS' ? { ...PUBLIC, ...PREFLIGHT } : PUBLIC;
      const got = await ask(path, method, headers);
      const want = await ask(unknown, method, headers);
      expect(want.status, `${method} ${unknown}`).toBe(method === 'TRACE' ? want.status : 404);
      expect(got.status, `${method} ${path}`).toBe(want.status);
      expect(got.headers, `${method} ${path}`).toEqual(want.headers);
      expect(got.body.replace(path, unknown), `${method} ${path}`).toBe(want.body);
    }
  });

  it('are charged by the rate limiter like the unknown path they look like', async () => {
    const limited = await startEnv({
      patch: { trustProxy: ['127.0.0.1'], rateLimit: { enabled: true, max: 2, windowMs: 60_000 } },
    });
    try {
      const statuses = [];
      for (const path of ['/metrics', '/status', '/metrics'])
        statuses.push((await request(`${limited.base}${path}`, { headers: PUBLIC })).statusCode);
      expect(statuses).toEqual([404, 404, 429]);
      // Operators are never charged on their routes.
      for (let i = 0; i < 5; i++)
        expect((await request(`${limited.base}/metrics`, { headers: OPERATOR })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('operator routes for operators', () => {
  it('the preflight and 405 of a known path', async () => {
    const pre = await ask('/metrics', 'OPTIONS', { ...OPERATOR, ...PREFLIGHT });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    const post = await ask('/status', 'POST', OPERATOR);
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD, OPTIONS');
  });
});

describe('one CORS and method policy for every route', () => {
  const ROUTES: Array<[string, string]> = [
    ['/block/max', 'GET, HEAD, OPTIONS'],
    ['/pages/home', 'GET, HEAD, OPTIONS'],
    ['/batch', 'POST, OPTIONS'],
    ['/stream/heads', 'GET, OPTIONS'],
    ['/openapi.json', 'GET, HEAD, OPTIONS'],
    ['/healthz', 'GET, HEAD, OPTIONS'],
  ];

  it.each(ROUTES)('%s: the preflight allows X-API-Key and names %s', async (path, allow) => {
    const pre = await ask(path, 'OPTIONS', { ...PREFLIGHT, 'access-control-request-method': allow.split(', ')[0]! });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toBe(allow);
    expect(pre.headers['access-control-allow-headers']).toBe(
      'If-None-Match, Accept-Encoding, Content-Type, Last-Event-ID, X-API-Key',
    );
    expect(pre.headers['access-control-max-age']).toBe('86400');
  });

  it.each(ROUTES)('%s: a method it does not serve gets the 405 envelope with Allow: %s', async (path, allow) => {
    const method = allow.startsWith('POST') ? 'GET' : allow.startsWith('GET, OPTIONS') ? 'HEAD' : 'DELETE';
    const r = await ask(path, method, {});
    expect(r.status, method).toBe(405);
    expect(r.headers['allow']).toBe(allow);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    if (method !== 'HEAD') expect(JSON.parse(r.body)).toMatchObject({ code: 4050, data: null });
  });
});

describe('the OpenAPI document', () => {
  const OPERATOR_PATHS = ['/status', '/metrics', '/dashboard', '/dashboard/data.json'];
  const doc = async (headers: Record<string, string>) => {
    const r = await ask('/openapi.json', 'GET', headers);
    expect(r.status).toBe(200);
    return {
      r,
      doc: JSON.parse(r.body) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } },
    };
  };

  it('omits the operator routes and their schemas for the public', async () => {
    const { r, doc: d } = await doc(PUBLIC);
    for (const p of OPERATOR_PATHS) expect(Object.keys(d.paths), p).not.toContain(p);
    for (const p of ['/healthz', '/readyz', '/block/max', '/batch', '/stream/heads', '/openapi.json'])
      expect(Object.keys(d.paths), p).toContain(p);
    expect(Object.keys(d.components.schemas)).not.toContain('Status');
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    for (const ref of r.body.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(d.components.schemas, ref[1]).toHaveProperty(ref[1]!);
  });

  it('is complete for operators, and never stored by a shared cache', async () => {
    const { r, doc: d } = await doc(OPERATOR);
    for (const p of OPERATOR_PATHS) expect(Object.keys(d.paths), p).toContain(p);
    expect(Object.keys(d.components.schemas)).toContain('Status');
    expect(r.headers['cache-control']).toBe('private, no-store');
  });
});
