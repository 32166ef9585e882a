/**
 * Two replicas sharing one Redis: A probes the upstream, B never does after its
 * start (long probe interval), so B learns heads only over the fleet bus. Both
 * stream the same heads, with the same block records.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startReplica, type Replica } from '../helpers/replica.js';
import { headOf, openStream, type SseClient } from './sse-client.js';

const describe = describeRedis();

describe('head stream across a fleet', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 9 })]);
    [a, b] = await Promise.all([
      startReplica([sim.url], { redisUrl: redis.url, upstream: { probeIntervalMs: 100 } }),
      startReplica([sim.url], { redisUrl: redis.url, upstream: { probeIntervalMs: 600_000 } }),
    ]);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('every replica sends the same events, B learning the heads over the bus', async () => {
    const head = sim.chain.head();
    const [ca, cb] = await Promise.all([
      openStream(a.url, { lastEventId: String(head) }),
      openStream(b.url, { lastEventId: String(head) }),
    ]);
    clients.push(ca, cb);
    const probesB = sim.stats()['block/max'] ?? 0;
    sim.chain.advance(3);
    await Promise.all([ca, cb].map((c) => c.until(() => c.events.length === 3, 15_000, 'three heads')));
    sim.chain.advance(1);
    await Promise.all([ca, cb].map((c) => c.until(() => c.events.length === 4, 15_000, 'the fourth head')));
    expect(ca.heights()).toEqual([head + 1, head + 2, head + 3, head + 4]);
    // Same ids and content; only `time` is each replica's own clock.
    const same = (c: SseClient) => c.events.map((e) => ({ id: e.id, ...headOf(e), time: 0 }));
    expect(same(cb)).toEqual(same(ca));
    for (const e of ca.events) expect(headOf(e).block).not.toBeNull();
    // B did not probe: its heads came over the bus.
    expect((sim.stats()['block/max'] ?? 0) - probesB).toBeGreaterThan(0);
    expect(b.tracker.bestHead()).toBe(head + 4);
  });
});
