/**
 * Operations endpoints: /healthz (alive), /readyz (an upstream reachable),
 * /status (shape), never cached.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';
import { envelope, get, startEnv, waitFor, type Env } from '../helpers/proxy-kit.js';

describe('operations endpoints', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('/healthz is alive and not cached', async () => {
    env = await startEnv();
    const g = await get(env.base, '/healthz');
    expect(g.status).toBe(200);
    expect(g.header('cache-control')).toBe('no-store');
    const e = envelope(g);
    expect(e.code).toBe(0);
    expect(e.data).toEqual({ status: 'alive' });
  });

  it('/readyz is 200 once the upstream answered a probe', async () => {
    env = await startEnv();
    const g = await get(env.base, '/readyz');
    expect(g.status).toBe(200);
    expect(envelope(g).code).toBe(0);
    expect(g.header('cache-control')).toBe('no-store');
  });

  it('/readyz is 503 with an envelope when no upstream is reachable; /healthz stays 200', async () => {
    const dead = await startFakeUpstream();
    const url = dead.url;
    await dead.close();
    const proxy = await startTestProxy([url], {
      upstream: { connectTimeoutMs: 200, attemptTimeoutMs: 200, totalDeadlineMs: 400 },
    });
    try {
      await waitFor(
        async () => {
          const s = await get(proxy.url, '/status');
          const ups = (envelope(s).data as { upstreams: Array<{ lastError: string | null }> }).upstreams;
          return ups[0]?.lastError != null;
        },
        5000,
        'failed probe',
      );
      const r = await get(proxy.url, '/readyz');
      expect(r.status).toBe(503);
      const e = envelope(r);
      expect(e.code).not.toBe(0);
      expect(e.data).toBeNull();
      expect((await get(proxy.url, '/healthz')).status).toBe(200);
    } finally {
      await proxy.close();
    }
  });

  it('/status has the documented shape', async () => {
    env = await startEnv();
    await get(env.base, '/tx/count/today');
    const g = await get(env.base, '/status');
    expect(g.status).toBe(200);
    expect(g.header('cache-control')).toBe('no-store');
    const data = envelope(g).data as {
      ready: boolean;
      uptimeSeconds: number;
      chain: { bestHead: number | null; finalHeight: number | null };
      upstreams: Array<{ name: string; url: string; healthy: boolean; breaker: string; head: number | null }>;
      cache: {
        memory: { entries: number; bytes: number; maxBytes: number; flightsInProgress: number };
        redis: unknown;
      };
    };
    expect(data.ready).toBe(true);
    expect(typeof data.uptimeSeconds).toBe('number');
    expect(data.chain.bestHead).toBe(4842503);
    expect(data.upstreams).toHaveLength(1);
    expect(data.upstreams[0]).toMatchObject({ name: 'u0', healthy: true, breaker: 'closed', head: 4842503 });
    expect(data.upstreams[0]!.url).toBe(env.up.url);
    expect(data.cache.memory.entries).toBeGreaterThanOrEqual(1);
    expect(data.cache.memory.bytes).toBeGreaterThan(0);
    expect(data.cache.memory.flightsInProgress).toBe(0);
    expect(data.cache.redis).toBeNull();
  });

  it('ops endpoints never reach the upstream and refuse other methods', async () => {
    env = await startEnv();
    const before = env.count();
    for (const p of ['/healthz', '/readyz', '/status', '/metrics']) expect((await get(env.base, p)).status).toBe(200);
    expect(env.count()).toBe(before);
    const post = await get(env.base, '/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
