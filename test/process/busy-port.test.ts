/**
 * A busy port stops start-up with one line and exit 1, before anything else
 * started: no simulator (no log line at all), no Redis connection, no
 * upstream probe.
 */
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startProc } from './kit.js';

let holder: Server | null = null;
let redis: RedisServer | null = null;
let fake: FakeUpstream | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (holder === null ? r() : holder.close(() => r())));
  holder = null;
  await redis?.stop();
  redis = null;
  await fake?.close();
  fake = null;
});

async function occupiedPort(): Promise<number> {
  holder = createServer();
  const h = holder;
  await new Promise<void>((r) => h.listen({ port: 0, host: '127.0.0.1' }, () => r()));
  const addr = h.address();
  return typeof addr === 'object' && addr !== null ? addr.port : 0;
}

async function connectionsReceived(url: string): Promise<number> {
  const c = new Redis(url);
  try {
    const info = await c.info('stats');
    return Number(/total_connections_received:(\d+)/.exec(info)?.[1]);
  } finally {
    c.disconnect();
  }
}

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describeRedis()('a busy port', { timeout: 120_000 }, () => {
  it('without an upstream: one line, exit 1, no simulator started', async () => {
    const port = await occupiedPort();
    const p = startProc({ PORT: String(port) });
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toBe(`chainproxy: port ${port} is in use; set PORT\n`);
    expect(p.stdout()).toBe('');
  });

  it('with Redis and an upstream configured: neither is contacted', async () => {
    redis = await startRedisServer();
    fake = await startFakeUpstream();
    const before = await connectionsReceived(redis.url);
    const port = await occupiedPort();
    const p = startProc({
      PORT: String(port),
      REDIS_URL: redis.url,
      UPSTREAM_URLS: fake.url,
      UPSTREAM_PROBE_INTERVAL_MS: '100',
    });
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toBe(`chainproxy: port ${port} is in use; set PORT\n`);
    // The only connection since `before` is the one reading the count.
    expect(await connectionsReceived(redis.url)).toBe(before + 1);
    expect(fake.requests).toEqual([]);
  });
});
