/**
 * Purges across replicas whose clocks disagree by an hour, sharing one
 * redis-server: a purge is never escaped. A mark heard on the bus takes the
 * hearer's time of hearing; marks kept in Redis carry Redis's time and are
 * taken by a loading replica as that long ago by its own clock; an entry read
 * from Redis is judged by the reader's clock (src/redis/codec.ts).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { normalAddress } from '../../src/sim/ids.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { purged, purgeStatus } from '../purge/kit.js';

const describe = describeRedis();
const HOUR = 3_600_000;
/** A fresh address per attempt (a retried test starts clean). */
let nextAddress = 40;

describe('purges across replicas an hour apart', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let replicas: Replica[] = [];
  const start = async (skew: number): Promise<Replica> => {
    const r = await startReplica([sim.url], { redisUrl: redis.url }, () => Date.now() + skew);
    replicas.push(r);
    return r;
  };
  /** Purges the address's tag on `r`, then waits until each of `others` has heard it. */
  const purgeOn = async (r: Replica, others: Replica[], address: string): Promise<void> => {
    const before = await Promise.all(others.map(async (o) => (await purgeStatus(o.url)).fleet));
    await purged(r.url, `tag=address:${address}`);
    await waitFor(
      async () =>
        (await Promise.all(others.map(async (o, i) => (await purgeStatus(o.url)).fleet > before[i]!))).every(Boolean),
      5000,
      'the purge heard on the bus',
    );
  };

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 5 })]);
  });
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    replicas = [];
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('a purger an hour behind: the entry it names is purged on the others, Redis copy included', async () => {
    const [a, purger] = [await start(0), await start(-HOUR)];
    const path = `/address/info?address=${normalAddress(5, nextAddress++)}`;
    expect((await get(a.url, path)).cache).toBe('MISS');
    expect((await get(a.url, path)).cache).toBe('HIT');
    await purgeOn(purger, [a], path.slice(path.indexOf('=') + 1));
    expect((await get(a.url, path)).cache).toBe('MISS');
  });

  it('a writer an hour ahead: its entry in Redis does not escape a purge', async () => {
    const [writer, a] = [await start(HOUR), await start(0)];
    const address = normalAddress(5, nextAddress++);
    const path = `/address/info?address=${address}`;
    expect((await get(writer.url, path)).cache).toBe('MISS');
    await purgeOn(a, [writer], address);
    expect((await get(a.url, path)).cache).toBe('MISS');
  });

  it('a replica started after a purge by a purger an hour behind loads it: Redis’s copy is not served', async () => {
    const [a, purger] = [await start(0), await start(-HOUR)];
    const address = normalAddress(5, nextAddress++);
    const path = `/address/info?address=${address}`;
    expect((await get(a.url, path)).cache).toBe('MISS');
    await purgeOn(purger, [a], address);
    const late = await start(0);
    await waitFor(async () => (await purgeStatus(late.url)).marks > 0, 5000, 'the marks loaded');
    expect((await get(late.url, path)).cache).toBe('MISS');
  });
});
