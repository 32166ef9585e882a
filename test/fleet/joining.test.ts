/**
 * A replica that joins a fleet owes everything before it joined. Replica A
 * (precise invalidation, one real redis-server) fetches the lists of two
 * addresses at head S into the shared tier; block S + 1 names the first (y),
 * no block names the second (z). Replica B starts at S + 2. It judges A's
 * entries by the fleet's record of recent touched sets: y is stale, z a hit.
 * Without a record reaching back that far, both are stale (never fresh by
 * default, counted as joined-late); a record that reaches back only after a
 * reconnect to Redis is read again then.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSimulator, touchedAt, type SimulatorHandle } from '../../src/sim/index.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, SEED, truth } from '../invalidation/kit.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedis();
const RECORD = 'chainproxy:touched:record';
const list = (a: string): string => `/tx/listByAddress?address=${a}&page=1&page_size=20`;

let redis: RedisServer | undefined;
let sim: SimulatorHandle | undefined;
let raw: RedisClient | undefined;
let replicas: Replica[] = [];
beforeEach(async () => {
  [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ seed: SEED, blockIntervalMs: 0 })]);
  raw = createRedis(redis.url, testConfig([]).redis);
  await waitReady(raw, 5000);
});
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  replicas = [];
  if (raw !== undefined) await closeRedis(raw);
  await Promise.all([sim?.close(), redis?.stop()]);
  redis = sim = raw = undefined;
});

async function replica(): Promise<Replica> {
  // A short lease: a replica that reads a block after another did is not kept waiting for a set already shared.
  const r = await startReplica([sim!.url], {
    redisUrl: redis!.url,
    redis: { leaseMs: 300 },
    invalidation: PRECISE,
    upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
  });
  replicas.push(r);
  return r;
}

/** A fetches y's and z's lists at S; then blocks S + 1 (naming y) and S + 2. */
async function history(a: Replica): Promise<{ s: number; y: string; z: string }> {
  const s = sim!.chain.head();
  await covered(a.url, s);
  const next = [touchedAt(SEED, s + 1).addresses, touchedAt(SEED, s + 2).addresses];
  const y = [...next[0]!].find((x) => !next[1]!.has(x))!;
  const z = [...touchedAt(SEED, s).addresses].find((x) => !next[0]!.has(x) && !next[1]!.has(x))!;
  for (const p of [list(y), list(z)]) expect((await get(a.url, p)).cache).toBe('MISS');
  for (const h of [s + 1, s + 2]) {
    sim!.chain.advance(1);
    await covered(a.url, h);
  }
  // A's lease on the newest block has lapsed: a replica starting now reads it itself if it must.
  await waitFor(
    async () => (await raw!.keys(`chainproxy:lease:*touched:block:${s + 2}`)).length === 0,
    5000,
    'the block lease to lapse',
  );
  return { s, y, z };
}

const judgedFrom = async (url: string): Promise<unknown> => (await invalidationStatus(url))['judgedFrom'];
const joinedLate = async (url: string): Promise<number> =>
  Number(((await invalidationStatus(url))['guarded'] as Record<string, number>)['joined-late']);

describe('a replica that joins a fleet', () => {
  it("judges the shared tier's older entries by the fleet's record of touched sets", async () => {
    const a = await replica();
    const { s, y, z } = await history(a);
    const b = await replica();
    await covered(b.url, s + 2);
    const ry = await get(b.url, list(y));
    expect(ry.cache).not.toBe('HIT');
    expect(content(ry.text)).toBe(await truth(sim!.url, list(y)));
    const rz = await get(b.url, list(z));
    expect(rz.cache).toBe('HIT');
    expect(content(rz.text)).toBe(await truth(sim!.url, list(z)));
  });

  it('without a record reaching back, every entry fetched before its first block is stale, counted', async () => {
    const a = await replica();
    const { s, y, z } = await history(a);
    await raw!.del(RECORD);
    const b = await replica();
    await covered(b.url, s + 2);
    for (const p of [list(y), list(z)]) {
      const r = await get(b.url, p);
      expect(r.cache, p).not.toBe('HIT');
      expect(content(r.text)).toBe(await truth(sim!.url, p));
    }
    expect(await joinedLate(b.url)).toBeGreaterThanOrEqual(1);
  });

  it('reads the record again after reconnecting to Redis', async () => {
    const a = await replica();
    const { s, z } = await history(a);
    // The record lacks block S + 1 when B starts: B can judge only what was fetched from S + 1 on.
    const missing = await raw!.zrangebyscore(RECORD, s + 1, s + 1);
    expect(missing.length).toBeGreaterThan(0);
    await raw!.zremrangebyscore(RECORD, s + 1, s + 1);
    const b = await replica();
    await covered(b.url, s + 2);
    expect(await judgedFrom(b.url)).toBe(s + 1);
    // The record is whole again, and the replicas' command connections drop and come back.
    await raw!.zadd(RECORD, ...missing.flatMap((m) => [s + 1, m]));
    await raw!.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await waitFor(async () => Number(await judgedFrom(b.url)) <= s - 1, 5000, 'B to read the record again');
    const rz = await get(b.url, list(z));
    expect(rz.cache).toBe('HIT');
    expect(content(rz.text)).toBe(await truth(sim!.url, list(z)));
  });

  it('after the chain went back, the record holds no set above the new head; a replica joining uses it', async () => {
    const a = await replica();
    const s0 = sim!.chain.head();
    await covered(a.url, s0);
    sim!.chain.advance(5);
    await covered(a.url, s0 + 5);
    const top = async (): Promise<number> => Number((await raw!.zrange(RECORD, -1, -1, 'WITHSCORES'))[1] ?? -1);
    await waitFor(async () => (await top()) === s0 + 5, 5000, 'the record to reach the head');
    // The upstream process starts again from an older height on the same port; the replica follows it down.
    const port = Number(new URL(sim!.url).port);
    await sim!.close();
    sim = await startSimulator({ port, seed: SEED, blockIntervalMs: 0, startHeight: s0 - 3 });
    await untilHead(a.tracker, (h) => h === s0 - 3, 'the rebase', 10_000);
    await waitFor(async () => (await top()) <= s0 - 3, 5000, 'the sets above the new head forgotten');
    sim.chain.advance(2);
    await covered(a.url, s0 - 1);
    await waitFor(async () => (await top()) === s0 - 1, 5000, 'the new sets recorded');
    const b = await replica();
    await waitFor(async () => (await judgedFrom(b.url)) === s0 - 3, 5000, "B judging from the record's first new set");
  });
});
