import { afterAll, beforeAll, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerRateLimit } from '../../src/http/rate-limit.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { redisTestConfig } from './fixtures.js';

const describe = describeRedis();

describe('registerRateLimit', () => {
  let server: RedisServer;
  const cfg = redisTestConfig({ commandTimeoutMs: 100 });
  const clients: RedisClient[] = [];
  const apps: FastifyInstance[] = [];
  let limited = 0;

  async function makeApp(opts: { redis: boolean; trustProxy?: string[]; max?: number; nameSpace?: string }): Promise<FastifyInstance> {
    let redis: RedisClient | null = null;
    if (opts.redis) {
      redis = createRedis(server.url, cfg);
      clients.push(redis);
      await waitReady(redis, 5000);
    }
    const app = Fastify({ trustProxy: opts.trustProxy ?? false });
    await registerRateLimit(app, {
      config: { enabled: true, max: opts.max ?? 3, windowMs: 60_000 },
      redis,
      metrics: { ...noopMetrics, rateLimited: () => limited++ },
      nameSpace: opts.nameSpace ?? `${cfg.keyPrefix}rl:`,
    });
    app.get('/block', async () => ({ code: 0, msg: 'success', data: null }));
    app.get('/healthz', async () => ({ ok: true }));
    await app.ready();
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const c of clients) await closeRedis(c);
    await server.stop();
  });

  it('two replicas share one counter; the 429 carries the envelope and Retry-After', async () => {
    const a = await makeApp({ redis: true, nameSpace: 'shared:' });
    const b = await makeApp({ redis: true, nameSpace: 'shared:' });
    for (let i = 0; i < 3; i++) {
      const r = await a.inject({ url: '/block?height=1', remoteAddress: '10.0.0.1' });
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('3');
    }
    const before = limited;
    const r = await b.inject({ url: '/block', remoteAddress: '10.0.0.1' });
    expect(r.statusCode).toBe(429);
    expect(r.json()).toEqual({ code: 4290, msg: 'rate limit exceeded', data: null });
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const retryAfter = Number(r.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited).toBe(before + 1);
    // another client still has its budget; ops routes are never limited
    expect((await b.inject({ url: '/block', remoteAddress: '10.0.0.2' })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await a.inject({ url: '/healthz', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
  });

  it('believes X-Forwarded-For only from trusted proxies', async () => {
    const trusting = await makeApp({ redis: true, trustProxy: ['127.0.0.1'], max: 2 });
    for (let i = 0; i < 4; i++) {
      const r = await trusting.inject({ url: '/block', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      expect(r.statusCode).toBe(200); // four distinct believed clients
    }
    const strict = await makeApp({ redis: true, max: 2, nameSpace: `${cfg.keyPrefix}strict:` });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await strict.inject({ url: '/block', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      codes.push(r.statusCode);
    }
    expect(codes).toEqual([200, 200, 429]); // the header is ignored: one client
  });

  it('limits per process without Redis', async () => {
    const local = await makeApp({ redis: false, max: 1 });
    expect((await local.inject({ url: '/block' })).statusCode).toBe(200);
    expect((await local.inject({ url: '/block' })).statusCode).toBe(429);
  });

  it('fails open, fast, when Redis is down or blackholed', async () => {
    const app = await makeApp({ redis: true, max: 1, nameSpace: `${cfg.keyPrefix}down:` });
    expect((await app.inject({ url: '/block', remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/block', remoteAddress: '10.9.9.9' })).statusCode).toBe(429);
    server.pause();
    try {
      const t0 = performance.now();
      const r = await app.inject({ url: '/block', remoteAddress: '10.9.9.9' });
      expect(r.statusCode).toBe(200);
      expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 3);
    } finally {
      server.resume();
    }
    await server.kill();
    try {
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const r = await app.inject({ url: '/block', remoteAddress: '10.9.9.9' });
        expect(r.statusCode).toBe(200);
        expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs);
      }
    } finally {
      await server.restart();
    }
  });
});
