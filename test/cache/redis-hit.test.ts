/**
 * A Redis-tier hit: two replicas on one real redis-server and one simulator.
 * A fetches (MISS) and writes Redis; B, with a small memory tier, reads from
 * Redis. A hit from Redis compresses nothing no client asked for, answers
 * gzip with the bytes Redis stored, and enters B's memory only when read
 * again (and, memory full, more often than what it evicts), so a scan through
 * Redis leaves B's hot set alone.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter, get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

/** Status, X-Cache, Content-Encoding and the bytes as sent. */
async function raw(
  base: string,
  path: string,
  acceptEncoding: string,
): Promise<{ cache: string | undefined; encoding: string | undefined; body: Buffer }> {
  const res = await request(`${base}${path}`, { headers: { 'accept-encoding': acceptEncoding } });
  const body = Buffer.from(await res.body.arrayBuffer());
  expect(res.statusCode).toBe(200);
  const h = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return { cache: h('x-cache'), encoding: h('content-encoding'), body };
}

describe('a Redis-tier hit', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  let height = 4_840_000;
  const upstream = (): number => sim.stats()['block/detail'] ?? 0;
  /** A path fetched once through A: in Redis (and A's memory), not in B's. */
  const seeded = async (): Promise<string> => {
    const path = `/block/detail?h=${height++}`;
    expect((await get(a.url, path)).cache).toBe('MISS');
    expect(b.memory.peek(path.slice(1))).toBeUndefined();
    return path;
  };

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    [a, b] = await Promise.all([
      startReplica([sim.url], { redisUrl: redis.url }),
      startReplica([sim.url], { redisUrl: redis.url, cacheMaxBytes: 48 * 1024 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('enters the memory tier on its second read, not its first', async () => {
    const path = await seeded();
    const promoted = await counter(b.url, 'chainproxy_cache_admissions_total', { verdict: 'promoted' });
    const refused = await counter(b.url, 'chainproxy_cache_admissions_total', { verdict: 'refused' });
    const before = upstream();
    expect((await get(b.url, path)).cache).toBe('HIT');
    expect(b.memory.peek(path.slice(1))).toBeUndefined();
    expect((await get(b.url, path)).cache).toBe('HIT');
    expect(b.memory.peek(path.slice(1))?.entry.key).toBe(path.slice(1));
    expect(upstream()).toBe(before);
    expect(await counter(b.url, 'chainproxy_cache_admissions_total', { verdict: 'refused' })).toBe(refused + 1);
    expect(await counter(b.url, 'chainproxy_cache_admissions_total', { verdict: 'promoted' })).toBe(promoted + 1);
  });

  it(
    'compresses nothing for clients that asked for identity; ' +
      'gzip comes from the bytes Redis stored, br is made when first asked for',
    async () => {
      // A stamp-free answer (no time-relative field): its stored bytes are what every hit sends.
      const path = '/contracts?page=3&page_size=50';
      const known = new Set(a.memory.held().map((e) => e.key));
      expect((await get(a.url, path)).cache).toBe('MISS');
      const key = a.memory.held().find((e) => !known.has(e.key) && e.key.startsWith('contracts'))?.key ?? '';
      expect(a.memory.peek(key)?.entry.stamps).toEqual([]);
      expect(b.memory.peek(key)).toBeUndefined();
      const made = b.memory.compressions;
      const id = await raw(b.url, path, 'identity');
      expect(id.body.length).toBeGreaterThan(1024);
      expect(id.encoding).toBeUndefined();
      expect((await raw(b.url, path, 'identity')).body.equals(id.body)).toBe(true);
      // Promoted on the second read, with no variant made nor being made.
      const m = b.memory.peek(key);
      expect(m).toBeDefined();
      expect(b.memory.compressions).toBe(made);
      expect(m?.unmade('br')).toBe(true);

      const gz = await raw(b.url, path, 'gzip');
      expect(gz).toMatchObject({ cache: 'HIT', encoding: 'gzip' });
      expect(gunzipSync(gz.body).equals(id.body)).toBe(true);
      expect(b.memory.compressions).toBe(made);

      // br: made once, in the background, on the first request that accepts it (sent identity meanwhile).
      const first = await raw(b.url, path, 'br');
      if (first.encoding === 'br') expect(brotliDecompressSync(first.body).equals(id.body)).toBe(true);
      else expect(first.body.equals(id.body)).toBe(true);
      expect(b.memory.compressions).toBe(made + 1);
      await waitFor(() => b.memory.peek(key)?.unmade('br') === false, 5000, 'the br variant made');
      const br = await raw(b.url, path, 'br');
      expect(br).toMatchObject({ cache: 'HIT', encoding: 'br' });
      expect(brotliDecompressSync(br.body).equals(id.body)).toBe(true);
      expect(b.memory.compressions).toBe(made + 1);
    },
  );

  it('a scan of cold keys through Redis does not evict the hot set', async () => {
    const hot = [await seeded(), await seeded(), await seeded()];
    // Memory is full from the tests before: a hot key gets in once read more often than
    // what it would evict (the entries before were read at most five times each).
    for (const p of hot) for (let i = 0; i < 8; i++) expect((await get(b.url, p)).cache).toBe('HIT');
    for (const p of hot) expect(b.memory.peek(p.slice(1))).toBeDefined();
    const held = b.memory.bytes;
    const cold: string[] = [];
    for (let i = 0; i < 40; i++) cold.push(await seeded());
    const before = upstream();
    // Each cold key read once from Redis: 40 entries are several times what B's memory holds.
    for (const p of cold) expect((await get(b.url, p)).cache).toBe('HIT');
    expect(upstream()).toBe(before);
    const coldBytes = cold.length * (b.memory.bytes > 0 ? held / hot.length : 0);
    expect(coldBytes).toBeGreaterThan(2 * 48 * 1024);
    for (const p of hot) expect(b.memory.peek(p.slice(1)), p).toBeDefined();
    for (const p of cold) expect(b.memory.peek(p.slice(1))).toBeUndefined();
  });

  it('a browser (gzip, deflate, br) gets the gzip bytes Redis stored, not identity, while no br is made', async () => {
    const path = '/contracts?page=4&page_size=50';
    expect((await get(a.url, path)).cache).toBe('MISS');
    const id = await raw(a.url, path, 'identity');
    expect(id.body.length).toBeGreaterThan(1024);
    // B's first read: answered from the Redis value alone (not admitted to its memory).
    const browser = await raw(b.url, path, 'gzip, deflate, br');
    expect(b.memory.peek(path.slice(1))).toBeUndefined();
    expect(browser).toMatchObject({ cache: 'HIT', encoding: 'gzip' });
    expect(gunzipSync(browser.body).equals(id.body)).toBe(true);
  });
});
