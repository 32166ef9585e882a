/**
 * The operations surface is not public: /metrics and /status answer only
 * clients in ADMIN_ALLOW (default loopback and the private ranges), the client
 * address being resolved through TRUST_PROXY; everyone else gets exactly the
 * 404 envelope of an unknown path. /healthz and /readyz stay public.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { envelope, get, startEnv, type Env } from '../helpers/proxy-kit.js';

describe('operator gate on /metrics and /status', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  const unknownPath = async (base: string, headers: Record<string, string> = {}) => {
    const g = await get(base, '/no-such-thing', { headers });
    return { status: g.status, body: envelope(g), type: g.header('content-type') };
  };

  it('a loopback client (the default allowlist) gets both', async () => {
    env = await startEnv();
    expect((await get(env.base, '/metrics')).status).toBe(200);
    const s = await get(env.base, '/status');
    expect(s.status).toBe(200);
    expect(envelope(s).code).toBe(0);
  });

  it('a public client behind a trusted load balancer gets the 404 envelope of an unknown path', async () => {
    // The balancer is loopback (trusted); it forwards a public client.
    env = await startEnv({ patch: { trustProxy: ['127.0.0.1'] } });
    const xff = { 'x-forwarded-for': '203.0.113.9' };
    const notFound = await unknownPath(env.base, xff);
    for (const path of ['/metrics', '/status']) {
      const g = await get(env.base, path, { headers: xff });
      expect(g.status, path).toBe(404);
      expect(g.header('content-type')).toBe(notFound.type);
      expect(envelope(g)).toEqual({ ...notFound.body, msg: `no such endpoint: ${path}` });
      expect(g.text).not.toContain('upstreams');
      expect(g.text).not.toContain(env.up.url.replace('http://', ''));
      expect((await get(env.base, path, { method: 'HEAD', headers: xff })).status, `HEAD ${path}`).toBe(404);
    }
    // A private client behind the same balancer is an operator.
    expect((await get(env.base, '/status', { headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(200);
    expect((await get(env.base, '/metrics', { headers: { 'x-forwarded-for': '192.168.7.7' } })).status).toBe(200);
  });

  it('an untrusted hop cannot claim a private address', async () => {
    env = await startEnv({ patch: { trustProxy: [], adminAllow: ['10.0.0.0/8'] }, waitProbe: false });
    // The socket address (loopback) is not in the list; X-Forwarded-For from an untrusted peer is ignored.
    const g = await get(env.base, '/metrics', { headers: { 'x-forwarded-for': '10.0.0.1' } });
    expect(g.status).toBe(404);
    expect(envelope(g).code).toBe(4040);
    expect((await get(env.base, '/status')).status).toBe(404);
  });

  it('/healthz and /readyz stay public', async () => {
    env = await startEnv({ patch: { trustProxy: ['127.0.0.1'] } });
    const xff = { 'x-forwarded-for': '203.0.113.9' };
    expect((await get(env.base, '/healthz', { headers: xff })).status).toBe(200);
    expect((await get(env.base, '/readyz', { headers: xff })).status).toBe(200);
  });
});
