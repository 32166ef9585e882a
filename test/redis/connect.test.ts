import { afterAll, beforeAll, expect, it } from 'vitest';
import { pino } from 'pino';
import { ChainTracker } from '../../src/chain/tracker.js';
import { connectFleet, type Fleet } from '../../src/fleet/connect.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { waitReady } from '../../src/redis/client.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { makeEntry, redisTestConfig } from './fixtures.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedis();

describe('connectFleet', () => {
  let server: RedisServer;
  const cfg = redisTestConfig({ leaseMs: 300 });
  const trackers = [new ChainTracker(), new ChainTracker()];
  let fleets: Fleet[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    fleets = trackers.map((tracker) =>
      connectFleet({
        url: server.url,
        config: cfg,
        tracker,
        metrics: noopMetrics,
        logger: pino({ level: 'silent' }),
        statsIntervalMs: 100,
      }),
    );
    for (const f of fleets) {
      await waitReady(f.client, 5000);
      await f.bus.ready();
    }
  });
  afterAll(async () => {
    for (const f of fleets) await f.close();
    await server.stop();
  });

  it('shares entries, heads and the lease between two replicas', async () => {
    const [a, b] = [fleets[0]!, fleets[1]!];
    expect(a.healthy()).toBe(true);
    const e = makeEntry('shared');
    await a.store.set(e);
    expect(await b.store.get('shared')).toEqual(e);

    trackers[0]!.observeHead(42);
    await untilHead(trackers[1]!, (h) => h === 42);

    expect(await a.coordinator.acquire('cold')).toBe(true);
    expect(await b.coordinator.acquire('cold')).toBe(false);
    const waiting = b.coordinator.waitForFill('cold');
    await a.store.set(makeEntry('cold'));
    await a.coordinator.release('cold');
    expect((await waiting)?.key).toBe('cold');
    await waitFor(() => a.tierStats().entries > 0);
    expect(a.tierStats().tier).toBe('redis');
  });
});
