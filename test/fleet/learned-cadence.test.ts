/**
 * A replica that joins a fleet takes the block interval the fleet learned
 * (the leader's 'heads' message carries it), on a real redis-server with a
 * simulator making a block every 1.5 s: once the leader has learned the
 * interval, a new replica that takes over the lease probes densely around
 * the expected block before it has seen three block intervals itself (it
 * would probe every sparse interval until then).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();

const INTERVAL = 1000;
const BLOCK_MS = 1500;
/** The intervals a replica needs to learn the cadence by itself (src/upstream/cadence.ts). */
const MIN_SAMPLES = 3;

interface Cadence {
  mode: string;
  blocks: number;
  windowMs: { from: number; to: number } | null;
}

const cadenceOf = async (r: Replica): Promise<Cadence> =>
  dataOf((await get(r.url, '/status')).text)['heads'] as Cadence;

describe("a new replica learns the fleet's block interval", () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: BLOCK_MS })]);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  let fleets = 0;
  /** A replica of the fleet `prefix`. */
  const start = async (prefix: string): Promise<Replica> => {
    const r = await startReplica([sim.url], {
      redisUrl: redis.url,
      redis: { keyPrefix: prefix },
      upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 100 },
    });
    replicas.push(r);
    return r;
  };

  it('a replica taking over the lease probes densely before it has seen three block intervals', async () => {
    const prefix = `cadence${++fleets}:`;
    const a = await start(prefix);
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    await waitFor(
      async () => (await cadenceOf(a)).windowMs !== null,
      BLOCK_MS * 10,
      'the leader to learn the block interval',
    );
    const b = await start(prefix);
    // It hears the leader's heartbeat (every half interval) and plans with the fleet's intervals.
    await waitFor(
      async () => (await cadenceOf(b)).windowMs !== null,
      BLOCK_MS * 10,
      "the new replica to take the fleet's interval",
    );
    expect(b.duty?.turn()).toBe('follower');
    // The leader goes (a rolling restart): the new replica takes the lease.
    await a.close();
    await waitFor(() => b.duty?.isLeader() === true, INTERVAL * 4, 'the new replica leads');
    let dense: Cadence | null = null;
    await waitFor(
      async () => {
        const c = await cadenceOf(b);
        if (c.mode === 'dense') dense = c;
        return dense !== null;
      },
      BLOCK_MS * 10,
      'the new leader to probe densely',
    );
    const seen = (dense as Cadence | null)?.blocks ?? Infinity;
    expect(seen).toBeLessThan(MIN_SAMPLES);
  }, 60_000);
});
