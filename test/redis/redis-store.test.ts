import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { closeRedis, createRedis, waitReady } from '../../src/redis/client.js';
import { encodeEntry } from '../../src/redis/codec.js';
import { RedisStore } from '../../src/redis/redis-store.js';
import type { Metrics } from '../../src/metrics/types.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { gunzipSync } from 'node:zlib';
import { carriedGzip } from '../../src/cache/carried-gzip.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { makeEntry, redisTestConfig } from './fixtures.js';
import { waitFor } from '../helpers/fake-upstream.js';

const describe = describeRedis();

describe('RedisStore', () => {
  let server: RedisServer;
  let client: Redis;
  let raw: Redis;
  let store: RedisStore;
  // The outage tests bound latency by multiples of the command deadline; 500 ms is one a loaded machine meets.
  const cfg = redisTestConfig({ commandTimeoutMs: 500, breakerFailures: 3, breakerCooldownMs: 150 });
  const errors: string[] = [];
  const metrics: Metrics = { ...noopMetrics, tierError: (_tier, op) => errors.push(op) };

  beforeAll(async () => {
    server = await startRedisServer();
    client = createRedis(server.url, cfg) as Redis;
    raw = createRedis(server.url, { ...cfg, commandTimeoutMs: 2000 }) as Redis;
    expect(await waitReady(client, 5000)).toBe(true);
    await waitReady(raw, 5000);
    store = new RedisStore({ client, config: cfg, metrics });
  });
  afterAll(async () => {
    await closeRedis(client);
    await closeRedis(raw);
    await server.stop();
  });
  beforeEach(async () => {
    await waitReady(client, 5000);
    await waitFor(() => store.healthy() || store.breaker.state() !== 'open', 5000);
    errors.length = 0;
  });

  it('is named redis and round-trips an entry; delete removes it; unknown keys miss', async () => {
    expect(store.name).toBe('redis');
    const e = makeEntry('block?height=7');
    await store.set(e);
    expect(await store.get(e.key)).toEqual(e);
    expect(await store.get('nope')).toBeUndefined();
    await store.delete(e.key);
    expect(await store.get(e.key)).toBeUndefined();
    await store.delete('never-there');
  });

  it('overwrites an entry on set', async () => {
    await store.set(makeEntry('ow', { etag: 'W/"1"' }));
    await store.set(makeEntry('ow', { etag: 'W/"2"' }));
    expect((await store.get('ow'))?.etag).toBe('W/"2"');
  });

  it('expires in Redis at sieUntil and keeps the absolute times (remaining TTL, not a fresh one)', async () => {
    const now = Date.now();
    const e = makeEntry('ttl', { freshUntil: now + 3000, swrUntil: now + 5000, sieUntil: now + 8000 }, now);
    await store.set(e);
    const pttl = await raw.pttl(store.redisKey('ttl'));
    expect(pttl).toBeGreaterThan(7000);
    expect(pttl).toBeLessThanOrEqual(8000);
    await new Promise((r) => setTimeout(r, 300));
    const back = await store.get('ttl');
    expect(back?.freshUntil).toBe(e.freshUntil);
    expect(back?.swrUntil).toBe(e.swrUntil);
    expect(back?.sieUntil).toBe(e.sieUntil);
    expect(back?.createdAt).toBe(e.createdAt);
  });

  it('does not store an entry whose stale-if-error window is over', async () => {
    const now = Date.now();
    await store.set(makeEntry('dead', { freshUntil: now - 3, swrUntil: now - 2, sieUntil: now - 1 }, now));
    expect(await raw.exists(store.redisKey('dead'))).toBe(0);
  });

  it('treats a corrupt or foreign value as a miss and deletes it', async () => {
    await raw.set(store.redisKey('bad'), Buffer.from('{"not":"ours"}'));
    expect(await store.get('bad')).toBeUndefined();
    expect(await raw.exists(store.redisKey('bad'))).toBe(0);
    // a valid value stored under another key is foreign too
    await raw.set(store.redisKey('moved'), await encodeEntry(makeEntry('elsewhere'), 1024));
    expect(await store.get('moved')).toBeUndefined();
    expect(await raw.exists(store.redisKey('moved'))).toBe(0);
  });

  it('sends the reads of one event-loop turn as one MGET, each answer to its own caller', async () => {
    const calls = async (cmd: string): Promise<number> => {
      const m = new RegExp(`^cmdstat_${cmd}:calls=(\\d+)`, 'm').exec(await raw.info('commandstats'));
      return m?.[1] === undefined ? 0 : Number(m[1]);
    };
    const entries = ['b1', 'b2', 'b3', 'b4'].map((k) => makeEntry(k, { etag: `W/"${k}"` }));
    for (const e of entries) await store.set(e);
    const [gets, mgets] = [await calls('get'), await calls('mget')];
    const got = await Promise.all([...entries.map((e) => store.get(e.key)), store.get('b-absent')]);
    expect(got.map((e) => e?.etag)).toEqual(['W/"b1"', 'W/"b2"', 'W/"b3"', 'W/"b4"', undefined]);
    expect(await calls('mget')).toBe(mgets + 1);
    expect(await calls('get')).toBe(gets);
  });

  it('stores bodies above the threshold with their gzip variant and returns both exactly', async () => {
    const body = Buffer.from(
      JSON.stringify({ data: Array.from({ length: 400 }, (_, i) => ({ i, v: 'x'.repeat(20) })) }),
    );
    const e = makeEntry('gz', { body });
    await store.set(e);
    const stored = await raw.getBuffer(store.redisKey('gz'));
    expect(stored).not.toBeNull();
    // The body, then its gzip bytes (much smaller), behind a short header.
    expect(stored!.length).toBeGreaterThan(body.length);
    expect(stored!.length).toBeLessThan(body.length * 1.4);
    const back = await store.get('gz');
    expect(back?.body.equals(body)).toBe(true);
    const gz = back === undefined ? null : carriedGzip(back.body);
    expect(gz !== null && gunzipSync(gz).equals(body)).toBe(true);
  });

  it('paused (blackholed) Redis: bounded latency, misses, no throw; then recovers', async () => {
    await store.set(makeEntry('p1'));
    server.pause();
    try {
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        expect(await store.get('p1')).toBeUndefined();
        await store.set(makeEntry(`p${i}`));
        await store.delete('p1');
        expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 3 * 2);
      }
      expect(store.healthy()).toBe(false);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      server.resume();
    }
    const e = makeEntry('after-pause');
    await waitFor(async () => {
      await store.set(e);
      return (await store.get(e.key)) !== undefined;
    }, 5000);
  });

  it('killed Redis: get/set/delete return fast and never throw; restarted: resumes by itself', async () => {
    await server.kill();
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      expect(await store.get('k')).toBeUndefined();
      await store.set(makeEntry('k'));
      await store.delete('k');
      expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 2);
    }
    expect(store.healthy()).toBe(false);
    await server.restart();
    const e = makeEntry('after-restart');
    await waitFor(async () => {
      await store.set(e);
      return (await store.get(e.key)) !== undefined;
    }, 8000);
    expect(store.healthy()).toBe(true);
    expect(await store.get(e.key)).toEqual(e);
  });
});
