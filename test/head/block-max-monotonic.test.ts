/**
 * block/max never goes backwards for clients, whatever the source of the
 * answer: a lower entry in memory, a lower entry in the shared Redis tier (as a
 * lagging replica or a follower's fill would leave it), or a fresh fetch.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { startChainFake, type ChainFake } from '../helpers/chain-fake.js';

const describe = describeRedis();
const HEAD = 4_842_503;

function blockMaxEntry(height: number) {
  return createEntry({
    key: 'block/max',
    status: 200,
    body: Buffer.from(`{"code":0,"msg":"success","data":{"height":${height}.0,"server_timestamp":${Date.now()}}}`),
    createdAt: Date.now(),
    ttlMs: 60_000,
    swrMs: 1000,
    sieMs: 60_000,
    head: height,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
  });
}

const heightOf = async (base: string) => {
  const r = await get(base, '/block/max');
  expect(r.status).toBe(200);
  return Number(dataOf(r.text)['height']);
};

describe('block/max is monotonic on every source', () => {
  let redis: RedisServer;
  let fake: ChainFake;
  let a: Replica;

  beforeAll(async () => {
    [redis, fake] = await Promise.all([startRedisServer(), startChainFake(HEAD)]);
    a = await startReplica([fake.url], { redisUrl: redis.url, upstream: { probeIntervalMs: 60_000 } });
  });
  afterAll(async () => {
    await a?.close();
    await Promise.all([fake?.close(), redis?.stop()]);
  });

  it('memory: a lower entry is not served', async () => {
    expect(await heightOf(a.url)).toBe(HEAD);
    a.memory.put(blockMaxEntry(HEAD - 10));
    expect(await heightOf(a.url)).toBe(HEAD);
  });

  it('Redis: a lower entry found in the shared tier is not served', async () => {
    await a.memory.delete('block/max');
    await a.fleet!.store.set(blockMaxEntry(HEAD - 20));
    expect(await heightOf(a.url)).toBe(HEAD);
  });

  it('a fetch answering lower is not served either; a higher one is', async () => {
    await a.memory.delete('block/max');
    await a.fleet!.store.delete('block/max');
    fake.head.value = HEAD - 5;
    expect(await heightOf(a.url)).toBe(HEAD);
    fake.head.value = HEAD + 1;
    await a.memory.delete('block/max');
    await a.fleet!.store.delete('block/max');
    expect(await heightOf(a.url)).toBe(HEAD + 1);
  });
});
