/**
 * What a legacy backend receives: none of the proxy's credentials (X-API-Key,
 * a key configured by SHA-256 included), and forwarding headers the proxy
 * vouches for: X-Forwarded-For appends the peer to the chain resolved through
 * TRUST_PROXY, X-Forwarded-Proto and -Host are set, and client claims
 * (X-Forwarded-*, X-Real-IP, Forwarded) from untrusted peers are dropped.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { raw, startPassEnv, type PassEnv } from './kit.js';

let legacy: FakeUpstream;
let env: PassEnv | undefined;

beforeAll(async () => {
  legacy = await startFakeUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
afterEach(async () => {
  await env?.close();
  env = undefined;
});
afterAll(async () => legacy?.close());

const ROUTES = () => [{ prefix: '/api', target: legacy.url }];

/** The headers of the backend's last request, after one client request. */
async function seen(
  path: string,
  headers: Record<string, string>,
): Promise<Record<string, string | string[] | undefined>> {
  const before = legacy.requests.length;
  const r = await raw(env!.proxy.url, path, { headers });
  expect(r.status).toBe(200);
  expect(legacy.requests.length).toBe(before + 1);
  return legacy.requests.at(-1)!.headers;
}

const CLAIMS = {
  'x-forwarded-for': '198.51.100.7',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-port': '443',
  'x-real-ip': '198.51.100.8',
  forwarded: 'for=198.51.100.9;proto=https',
};

describe('passthrough credentials', () => {
  it(
    'X-API-Key never reaches the backend: a configured key, ' +
      'a key configured by SHA-256, an unknown one, rate limiting off',
    async () => {
      const hashed = 'only-its-hash-is-configured';
      env = await startPassEnv(ROUTES(), {
        rateLimit: { enabled: true, max: 100, windowMs: 60_000 },
        apiKeys: [
          { name: 'clear', key: 'clear-secret', max: 100 },
          { name: 'hashed', sha256: createHash('sha256').update(hashed).digest('hex'), max: 100 },
        ],
      });
      for (const key of ['clear-secret', hashed]) {
        const h = await seen('/api/x', { 'x-api-key': key, 'x-other': 'kept' });
        expect(h['x-api-key'], key).toBeUndefined();
        expect(h['x-other']).toBe('kept');
      }
      await env.close();
      env = await startPassEnv(ROUTES());
      expect((await seen('/api/x', { 'x-api-key': 'anything' }))['x-api-key']).toBeUndefined();
    },
  );
});

describe('passthrough forwarding headers', () => {
  it(
    'an untrusted peer: its claims are dropped; ' +
      'the backend sees the socket peer, http and the Host the client asked for',
    async () => {
      env = await startPassEnv(ROUTES());
      const h = await seen('/api/x', { host: 'public.example:8443', ...CLAIMS });
      expect(h['x-forwarded-for']).toBe('127.0.0.1');
      expect(h['x-forwarded-proto']).toBe('http');
      expect(h['x-forwarded-host']).toBe('public.example:8443');
      for (const name of ['x-forwarded-port', 'x-real-ip', 'forwarded']) expect(h[name], name).toBeUndefined();
    },
  );

  it(
    'a trusted balancer: the believed chain plus the balancer, ' +
      'its proto and host; spoofed hops left of the client dropped',
    async () => {
      env = await startPassEnv(ROUTES(), { trustProxy: ['127.0.0.1', '10.0.0.0/8'] });
      const h = await seen('/api/x', {
        ...CLAIMS,
        // A client claimed 1.2.3.4; the public client 203.0.113.9 went through an inner balancer 10.0.0.2.
        'x-forwarded-for': '1.2.3.4, 203.0.113.9, 10.0.0.2',
      });
      expect(h['x-forwarded-for']).toBe('203.0.113.9, 10.0.0.2, 127.0.0.1');
      expect(h['x-forwarded-proto']).toBe('https');
      expect(h['x-forwarded-host']).toBe('evil.example');
      // The trusted balancer's other forwarding headers are relayed.
      expect(h['x-real-ip']).toBe('198.51.100.8');
      expect(h['forwarded']).toBe('for=198.51.100.9;proto=https');
      expect(h['x-forwarded-port']).toBe('443');
    },
  );

  it('a trusted balancer without X-Forwarded-For: the balancer itself', async () => {
    env = await startPassEnv(ROUTES(), { trustProxy: ['127.0.0.1'] });
    const h = await seen('/api/x', {});
    expect(h['x-forwarded-for']).toBe('127.0.0.1');
    expect(h['x-forwarded-proto']).toBe('http');
  });
});
