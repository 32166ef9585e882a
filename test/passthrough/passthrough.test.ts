/**
 * Passthrough routes on real sockets: bytes, status and query relayed, the
 * body streamed, nothing cached, unknown prefixes still 404, backend failures
 * as 502/504 envelopes, hop-by-hop headers and Set-Cookie dropped both ways,
 * other methods refused, and the per-route metrics.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';
import { json, passConfig, raw, startPassEnv, type PassEnv } from './kit.js';

let legacy: FakeUpstream;
let env: PassEnv;
let refusedUrl: string;
const BLOB = randomBytes(256 * 1024);
let releaseStream: () => void = () => {};

beforeAll(async () => {
  legacy = await startFakeUpstream((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/blob') {
      res.writeHead(203, { 'content-type': 'application/octet-stream', 'x-legacy': 'yes' });
      res.end(BLOB);
    } else if (url.pathname === '/api/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first;');
      releaseStream = () => res.end('last');
    } else if (url.pathname === '/api/hops') {
      res.setHeader('connection', 'keep-alive, X-Backend-Hop');
      res.setHeader('x-backend-hop', 'secret');
      res.setHeader('keep-alive', 'timeout=5');
      res.setHeader('upgrade', 'h2c');
      res.setHeader('proxy-authenticate', 'Basic realm="legacy"');
      res.setHeader('set-cookie', ['session=abc; Path=/', 'track=1']);
      res.setHeader('trailer', 'x-checksum');
      res.setHeader('x-end-to-end', 'kept');
      res.setHeader('content-type', 'application/json');
      res.write('{"seen":');
      res.addTrailers({ 'x-checksum': '1' });
      res.end(`${JSON.stringify(req.headers)}}`);
    } else if (url.pathname === '/api/slow') {
      // never answers: the proxy's timeout must
    } else if (url.pathname === '/api/stall') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    } else if (url.pathname === '/api/busy-bare') {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('legacy busy, no hint');
    } else if (url.pathname === '/api/busy') {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '7' });
      res.end('legacy busy');
    } else if (url.pathname.startsWith('/v2/')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`rewritten ${req.url}`);
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(`<p>legacy 404 ${req.url}</p>`);
    }
  });
  const gone = await startFakeUpstream();
  refusedUrl = gone.url;
  await gone.close();
  env = await startPassEnv([
    { prefix: '/api', target: legacy.url },
    { prefix: '/explorer', target: `${legacy.url}/v2` },
    { prefix: '/node', target: refusedUrl },
  ]);
}, 30_000);

afterAll(async () => {
  releaseStream();
  await env?.close();
  await legacy?.close();
});

describe('passthrough relays', () => {
  it('status, headers and body bytes, with the path and query as given', async () => {
    const before = legacy.count('/api/blob');
    const r = await raw(env.proxy.url, '/api/blob?b=2&a=1&a=3');
    expect(r.status).toBe(203);
    expect(r.headers['x-legacy']).toBe('yes');
    expect(r.body.equals(BLOB)).toBe(true);
    expect(legacy.requests.at(-1)?.url).toBe('/api/blob?b=2&a=1&a=3');
    // not cached: a second request goes to the backend again
    await raw(env.proxy.url, '/api/blob');
    expect(legacy.count('/api/blob')).toBe(before + 2);
  });

  it("a backend's own error status and body unchanged", async () => {
    const r = await raw(env.proxy.url, '/api/missing');
    expect(r.status).toBe(404);
    expect(r.body.toString()).toBe('<p>legacy 404 /api/missing</p>');
  });

  it("a backend's 503 is relayed once, not retried", async () => {
    const before = legacy.count('/api/busy');
    const r = await raw(env.proxy.url, '/api/busy');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('7');
    expect(r.body.toString()).toBe('legacy busy');
    expect(legacy.count('/api/busy')).toBe(before + 1);
  });

  it("a backend's 503 without Retry-After gets the proxy's", async () => {
    const r = await raw(env.proxy.url, '/api/busy-bare');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body.toString()).toBe('legacy busy, no hint');
  });

  it('dot segments escaping the prefix are refused with a 400 envelope', async () => {
    const before = legacy.count();
    for (const path of ['/api/../status', '/api/%2e%2e/status', '/explorer/..%2f..%2fetc']) {
      const r = await raw(env.proxy.url, path);
      expect(r.status, path).toBe(400);
      expect(json(r).code, path).toBe(4000);
    }
    expect(legacy.count()).toBe(before);
  });

  it('a target with a path replaces the prefix', async () => {
    const r = await raw(env.proxy.url, '/explorer/tx/1?x=y');
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('rewritten /v2/tx/1?x=y');
  });

  it('streams: the first chunk arrives while the backend is still writing', async () => {
    const received: string[] = [];
    // Told after each chunk taken in.
    const chunks = new EventEmitter();
    const done = new Promise<string>((resolve, reject) => {
      httpRequest(`${env.proxy.url}/api/stream`, { agent: false }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          received.push(c);
          chunks.emit('chunk');
        });
        res.on('end', () => resolve(received.join('')));
      })
        .on('error', reject)
        .end();
    });
    await untilEmitted(chunks, 'chunk', () => received.join('').includes('first;'), 'the first chunk');
    expect(received.join('')).not.toContain('last');
    releaseStream();
    expect(await done).toBe('first;last');
  });

  it('unknown prefixes and look-alikes are still 404 envelopes, without a backend request', async () => {
    const before = legacy.count();
    for (const path of ['/apix', '/ap', '/legacy/api/x', '/API/x']) {
      const r = await raw(env.proxy.url, path);
      expect(r.status, path).toBe(404);
      expect(json(r).code, path).toBe(4040);
    }
    expect(legacy.count()).toBe(before);
  });

  it('the API is still served by the proxy itself', async () => {
    const r = await raw(env.proxy.url, '/block/max');
    expect(r.status).toBe(200);
    expect(r.headers['x-cache']).toBeDefined();
  });

  it('other methods get the 405 envelope without a backend request', async () => {
    const before = legacy.count();
    const r = await raw(env.proxy.url, '/api/blob', { method: 'POST' });
    expect(r.status).toBe(405);
    expect(json(r).code).toBe(4050);
    expect(r.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(legacy.count()).toBe(before);
  });
});

describe('passthrough headers', () => {
  it('drops hop-by-hop headers (and those Connection names) and Set-Cookie from the backend', async () => {
    const r = await raw(env.proxy.url, '/api/hops');
    expect(r.status).toBe(200);
    expect(r.headers['x-end-to-end']).toBe('kept');
    for (const h of ['x-backend-hop', 'keep-alive', 'upgrade', 'proxy-authenticate', 'set-cookie', 'trailer'])
      expect(r.headers[h], h).toBeUndefined();
  });

  it('drops hop-by-hop request headers before the backend', async () => {
    const r = await raw(env.proxy.url, '/api/hops', {
      headers: {
        connection: 'X-Client-Hop',
        'x-client-hop': 'secret',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'proxy-authorization': 'Basic Zm9vOmJhcg==',
        'x-end-to-end': 'kept',
      },
    });
    const seen = (JSON.parse(r.body.toString()) as { seen: Record<string, string> }).seen;
    expect(seen['x-end-to-end']).toBe('kept');
    for (const h of ['x-client-hop', 'keep-alive', 'te', 'proxy-authorization']) expect(seen[h], h).toBeUndefined();
  });
});

describe('passthrough failures', () => {
  it('connection refused: 502 envelope', async () => {
    const r = await raw(env.proxy.url, '/node/v1/info');
    expect(r.status).toBe(502);
    expect(json(r)).toEqual({ code: 5022, msg: 'no upstream available', data: null });
    expect(r.headers['content-type']).toContain('application/json');
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('counts requests and failures per route prefix', async () => {
    const text = await (await fetch(`${env.proxy.url}/metrics`)).text();
    expect(text).toMatch(/^chainproxy_passthrough_requests_total\{route="\/api",status_class="2xx"\} [1-9]/m);
    expect(text).toMatch(/^chainproxy_passthrough_requests_total\{route="\/node",status_class="5xx"\} [1-9]/m);
    expect(text).toMatch(/^chainproxy_passthrough_failures_total\{route="\/node",reason="unavailable"\} [1-9]/m);
    expect(text).toMatch(/^chainproxy_passthrough_request_duration_seconds_count\{route="\/api"\} [1-9]/m);
    // no raw request paths as label values
    expect(text).not.toContain('/api/blob');
  });
});

describe('passthrough timeouts', () => {
  let slow: PassEnv;
  beforeAll(async () => {
    slow = await startPassEnv([{ prefix: '/api', target: legacy.url }], {
      passthrough: passConfig([{ prefix: '/api', target: legacy.url }], { timeoutMs: 300 }),
    });
  });
  afterAll(async () => slow?.close());

  it('no response headers within PASSTHROUGH_TIMEOUT_MS: 504 envelope', async () => {
    const r = await raw(slow.proxy.url, '/api/slow');
    expect(r.status).toBe(504);
    expect(json(r)).toEqual({ code: 5040, msg: 'upstream timed out', data: null });
    const text = await (await fetch(`${slow.proxy.url}/metrics`)).text();
    expect(text).toMatch(/^chainproxy_passthrough_failures_total\{route="\/api",reason="timeout"\} 1$/m);
  });

  it('a body stalled past the timeout cuts the response instead of holding it open', async () => {
    const outcome = await raw(slow.proxy.url, '/api/stall').then(
      (r) => `completed with ${r.body.length} bytes`,
      (e: unknown) => `aborted: ${(e as Error).message}`,
    );
    expect(outcome).toMatch(/^aborted/);
  });
});

describe('passthrough rate limiting', () => {
  let limited: PassEnv;
  beforeAll(async () => {
    limited = await startPassEnv([{ prefix: '/api', target: legacy.url }], {
      rateLimit: { enabled: true, max: 2, windowMs: 60_000 },
    });
  });
  afterAll(async () => limited?.close());

  it('shares the per-client budget of the API', async () => {
    const before = legacy.count('/api/blob');
    expect((await raw(limited.proxy.url, '/block/max')).status).toBe(200);
    expect((await raw(limited.proxy.url, '/api/blob')).status).toBe(203);
    const r = await raw(limited.proxy.url, '/api/blob');
    expect(r.status).toBe(429);
    expect(json(r).code).toBe(4290);
    expect(legacy.count('/api/blob')).toBe(before + 1);
  });
});
