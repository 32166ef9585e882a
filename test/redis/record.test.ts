/**
 * The fleet's record of recent touched sets (src/fleet/record.ts) on a real
 * redis-server and a real three-master Redis Cluster (one key, one script: no
 * cross-slot operation): sets come back by height, two of one height in the
 * order they were added; the record keeps the newest 256 and expires a day
 * after the last write; with Redis gone, adding is lost and reading says so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FleetRecord } from '../../src/fleet/record.js';
import type { TouchedSet } from '../../src/chain/touched.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { describeRedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { redisTestConfig } from './fixtures.js';

const set = (height: number, blockHash = `h${height}`, complete = true): TouchedSet => ({
  height,
  blockHash,
  addresses: [`a${height}`],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete,
});

const suites = [
  { name: 'one redis-server', describe: describeRedis(), start: startRedisServer },
  { name: 'a Redis Cluster', describe: describeRedisCluster(), start: startRedisCluster },
];

for (const suite of suites)
  suite.describe(`FleetRecord on ${suite.name}`, () => {
    let server: { url: string; stop(): Promise<void> };
    let client: RedisClient;
    let now = 1000;
    // Generous: what is tested is the record, not the deadline (four test workers share two cores).
    const cfg = redisTestConfig({ commandTimeoutMs: 5000 });
    let record: FleetRecord;

    beforeAll(async () => {
      server = await suite.start();
      client = createRedis(server.url, cfg);
      expect(await waitReady(client, 10_000)).toBe(true);
      record = new FleetRecord({ client, config: cfg, clock: () => now });
    });
    afterAll(async () => {
      await closeRedis(client);
      await server.stop();
    });

    it(
      'gives the sets back by height, ' + 'a height read twice in the order it was recorded, the newest 256, expiring',
      async () => {
        for (const h of [12, 10, 11]) await record.add(set(h));
        now = 2000;
        await record.add(set(11, 'h11-again'));
        const got = await record.read();
        expect(got?.map((s) => [s.height, s.blockHash])).toEqual([
          [10, 'h10'],
          [11, 'h11'],
          [11, 'h11-again'],
          [12, 'h12'],
        ]);
        expect(got?.[0]).toEqual(set(10));
        for (let h = 13; h < 13 + 300; h++) await record.add(set(h));
        const kept = (await record.read())!;
        expect(kept).toHaveLength(256);
        expect(kept[0]!.height).toBe(13 + 300 - 256);
        expect(kept[255]!.height).toBe(13 + 299);
        const ttl = await client.pttl(record.key);
        expect(ttl).toBeGreaterThan(23 * 3600 * 1000);
        expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
      },
    );

    it('skips members that are not sets of the current shape', async () => {
      await client.zadd(record.key, 5, 'not json', 6, JSON.stringify({ at: 1, set: { height: 6 } }));
      const got = (await record.read())!;
      expect(got.every((s) => s.height > 6)).toBe(true);
    });

    it('after the chain went back, forgets the sets above the new head (the blocks come again)', async () => {
      const top = Math.max(...(await record.read())!.map((s) => s.height));
      await record.forgetAbove(top - 10);
      const got = (await record.read())!;
      expect(got.length).toBeGreaterThan(0);
      expect(Math.max(...got.map((s) => s.height))).toBe(top - 10);
      await record.add(set(top - 9, 'again'));
      expect((await record.read())!.at(-1)).toEqual(set(top - 9, 'again'));
    });
  });

describeRedis()('FleetRecord without Redis', () => {
  it('adding is lost and reading answers null, at once', async () => {
    const server = await startRedisServer();
    const cfg = redisTestConfig();
    const client = createRedis(server.url, cfg);
    await waitReady(client, 5000);
    const record = new FleetRecord({ client, config: cfg });
    await server.kill();
    const started = performance.now();
    await record.add(set(1));
    expect(await record.read()).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    await closeRedis(client);
    await server.stop();
  });
});
