/**
 * Two replicas on one real redis-server, then on a real three-master Redis
 * Cluster: one of them reads each block's touched set (the fleet lease), the
 * other receives it on the bus; both invalidate exactly what the block names,
 * the entries of the shared tier included.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, touchedAt, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { describeRedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { deployedAt } from '../../src/sim/records/layout.js';
import { content, covered, invalidationStatus, PRECISE, SEED, truth } from './kit.js';

/** The first deployment after the default start; the suite starts five blocks before it. */
const DEPLOY = ((): number => {
  let h = 4_842_001;
  while (deployedAt(h) < 0) h++;
  return h;
})();

const suites = [
  { name: 'one redis-server', describe: describeRedis(), start: startRedisServer },
  { name: 'a Redis Cluster', describe: describeRedisCluster(), start: startRedisCluster },
];

for (const suite of suites)
  suite.describe(`precise invalidation across a fleet on ${suite.name}`, () => {
    let redis: { url: string; stop(): Promise<void> };
    let sim: SimulatorHandle;
    let a: Replica;
    let b: Replica;

    beforeAll(async () => {
      [redis, sim] = await Promise.all([
        suite.start(),
        startSimulator({ port: 0, blockIntervalMs: 0, seed: SEED, startHeight: DEPLOY - 5 }),
      ]);
      const patch = { redisUrl: redis.url, invalidation: PRECISE, upstream: { probeIntervalMs: 50 } };
      [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      await Promise.all([sim?.close(), redis?.stop()]);
    });

    const readHere = async (): Promise<number> =>
      Number((await invalidationStatus(a.url))['readHere']) + Number((await invalidationStatus(b.url))['readHere']);

    it('reads each block once for the fleet and invalidates the same entries on both replicas', async () => {
      const h0 = sim.chain.head();
      await Promise.all([covered(a, h0), covered(b, h0)]);
      const named = touchedAt(SEED, h0 + 1).addresses;
      const touched = [...named][0]!;
      const kept = [...touchedAt(SEED, h0).addresses].find((x) => !named.has(x))!;
      const pt = `/address/info?address=${touched}`;
      const pk = `/address/info?address=${kept}`;
      // Fetched through A, found on B in the shared tier.
      for (const p of [pt, pk]) {
        expect((await get(a.url, p)).cache).toBe('MISS');
        expect((await get(b.url, p)).cache).toBe('HIT');
      }

      const readBefore = await readHere();
      sim.chain.advance(1);
      await Promise.all([covered(a, h0 + 1), covered(b, h0 + 1)]);
      // One replica read the block; the other heard its set on the bus.
      expect((await readHere()) - readBefore).toBe(1);

      const onB = await get(b.url, pt);
      expect(onB.cache).not.toBe('HIT');
      expect(content(onB.text)).toBe(await truth(sim.url, pt));
      for (const r of [a, b]) {
        const k = await get(r.url, pk);
        expect(k.cache).toBe('HIT');
        expect(content(k.text)).toBe(await truth(sim.url, pk));
      }
      const sa = await invalidationStatus(a.url);
      const sb = await invalidationStatus(b.url);
      expect(Number(sa['fallbacks']) + Number(sb['fallbacks'])).toBe(0);
    });

    it(
      "a block's deployments travel on the bus: " + 'the contract list is dropped on the replica that did not read it',
      async () => {
        const p = '/contracts?page=1&page_size=5';
        const step = async (h: number): Promise<void> => {
          sim.chain.advance(h - sim.chain.head());
          await Promise.all([covered(a, h), covered(b, h)]);
        };
        expect(sim.chain.head()).toBeLessThan(DEPLOY - 1);
        expect((await get(a.url, p)).cache).toBe('MISS');
        expect((await get(b.url, p)).cache).toBe('HIT');
        await step(DEPLOY - 1);
        for (const r of [a, b]) expect((await get(r.url, p)).cache, 'across a block without deployment').toBe('HIT');
        const before = await truth(sim.url, p);
        await step(DEPLOY);
        // B refetches it; A then finds B's fresh entry in the shared tier.
        expect((await get(b.url, p)).cache).not.toBe('HIT');
        for (const r of [b, a]) {
          const got = await get(r.url, p);
          expect(content(got.text)).toBe(await truth(sim.url, p));
          expect(content(got.text)).not.toBe(before);
        }
      },
    );
  });
