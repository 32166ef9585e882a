/**
 * The limiter at the HTTP edge, on real sockets (a whole proxy in front of
 * the simulator, fake clock): the 429 envelope with Retry-After and
 * X-RateLimit-* on the routed path and on the pre-router hit path alike, API
 * keys counted per key (not per IP) with their own budget, the 401 envelope of
 * an unknown key, the allowlist, TRUST_PROXY, and the ops routes never limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildProxy } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { testConfig, type ConfigPatch } from '../helpers/proxy.js';
import { fakeClock } from '../helpers/clock.js';
import { get } from '../helpers/replica.js';

const PARTNER = 'partner-secret-0123456789';

describe('rate limit over HTTP', () => {
  let sim: SimulatorHandle;
  const closers: Array<() => Promise<void>> = [];

  async function proxy(patch: ConfigPatch) {
    const clock = fakeClock();
    const config = testConfig([sim.url], {
      ...patch,
      rateLimit: { enabled: true, windowMs: 60_000, ...patch.rateLimit },
    });
    const built = await buildProxy(config, { logger: pino({ level: 'silent' }), clock: clock.now });
    const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
    await built.pool.firstProbe;
    closers.push(() => built.close());
    return { url, clock, built };
  }

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
  });
  afterAll(async () => {
    for (const c of closers) await c();
    await sim.close();
  });

  it(
    'answers the 429 envelope with Retry-After and ' + 'X-RateLimit-* once the budget is spent, routed or not',
    async () => {
      const { url, clock, built } = await proxy({ rateLimit: { max: 4 } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(url, '/token/list')).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      // Requests 3 and 4 were fresh hits of a remembered URL: answered before the router.
      expect(built.fast?.size).toBe(1);
      const r = await get(url, '/token/list');
      expect(r.status).toBe(429);
      expect(JSON.parse(r.text)).toEqual({ code: 4290, msg: 'rate limit exceeded', data: null });
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['retry-after']).toBe('15'); // one token per 15 s
      expect(r.headers['x-ratelimit-limit']).toBe('4');
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
      expect(r.headers['access-control-expose-headers']).toContain('Retry-After');
      // An invalid request and an unknown path are charged too (through the router).
      expect((await get(url, '/block/detail?h=abc')).status).toBe(429);
      expect((await get(url, '/nope')).status).toBe(429);
      // Ops routes never are.
      for (const p of ['/healthz', '/metrics', '/status']) expect((await get(url, p)).status, p).toBe(200);
      clock.advance(14_999);
      expect((await get(url, '/token/list')).headers['retry-after']).toBe('1');
      clock.advance(1);
      expect((await get(url, '/token/list')).status).toBe(200);
      expect((await get(url, '/token/list')).status).toBe(429);
      const metrics = (await get(url, '/metrics')).text;
      expect(metrics).toMatch(/^chainproxy_rate_limited_total 5$/m);
      expect(metrics).toMatch(/^chainproxy_rate_limit_refused_total\{client="ip"\} 5$/m);
    },
  );

  it('charges an API key per key, with its own budget, whatever the client IP; unknown keys get 401', async () => {
    const { url } = await proxy({
      trustProxy: ['127.0.0.1'],
      rateLimit: { max: 1 },
      apiKeys: [{ name: 'explorer', key: PARTNER, max: 5 }],
      // Requests only here (misses priced in test/ratelimit/credits.test.ts).
      credits: { hitCost: 1, missCost: 0 },
    });
    const from = (ip: string, key?: string) => ({
      'x-forwarded-for': ip,
      ...(key !== undefined ? { 'x-api-key': key } : {}),
    });
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await get(url, '/token/list', from(`198.51.100.${i}`, PARTNER))).status);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await get(url, '/token/list', from('198.51.100.77', PARTNER));
    expect(limited.headers['x-ratelimit-limit']).toBe('5');
    // The IPs kept their own budget of 1.
    expect((await get(url, '/token/list', from('198.51.100.0'))).status).toBe(200);
    expect((await get(url, '/token/list', from('198.51.100.0'))).status).toBe(429);
    const unknown = await get(url, '/token/list', from('198.51.100.9', 'not-a-configured-key'));
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.text)).toEqual({ code: 4010, msg: 'unknown API key', data: null });
    const metrics = (await get(url, '/metrics')).text;
    expect(metrics).toMatch(/^chainproxy_api_key_requests_total\{key="explorer"\} 5$/m);
    expect(metrics).toMatch(/^chainproxy_rate_limit_refused_total\{client="explorer"\} 2$/m);
    expect(metrics).toMatch(/^chainproxy_api_key_unknown_total 1$/m);
    expect(metrics).not.toContain(PARTNER);
  });

  it('believes X-Forwarded-For only from trusted proxies', async () => {
    const strict = await proxy({ rateLimit: { max: 2 } });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await get(strict.url, '/token/list', { 'x-forwarded-for': `198.51.100.${i}` })).status);
    expect(codes).toEqual([200, 200, 429]); // the header is ignored: one client
  });

  it('never limits allowlisted clients', async () => {
    const { url } = await proxy({ rateLimit: { max: 1 }, rateLimitAllow: ['127.0.0.0/8'] });
    for (let i = 0; i < 10; i++) expect((await get(url, i % 2 ? '/token/list' : '/block/max')).status).toBe(200);
  });

  it('answers nothing about the limit when it is off', async () => {
    const { url } = await proxy({ rateLimit: { enabled: false, max: 1 } });
    for (let i = 0; i < 5; i++) expect((await get(url, '/token/list')).status).toBe(200);
  });
});
