import { afterAll, beforeAll, expect, it } from 'vitest';
import { FleetBus } from '../../src/fleet/bus.js';
import { FleetLease } from '../../src/fleet/lease.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { RedisStore } from '../../src/redis/redis-store.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { makeEntry, redisTestConfig, sleep } from './fixtures.js';

const describe = describeRedis();

describe('FleetLease', () => {
  let server: RedisServer;
  // Command deadlines are not what these tests measure: generous, so a loaded machine does not end a wait early.
  const cfg = redisTestConfig({ leaseMs: 400, commandTimeoutMs: 1000 });
  const clients: RedisClient[] = [];
  const replicas: { lease: FleetLease; store: RedisStore; bus: FleetBus }[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    for (const id of ['r1', 'r2']) {
      const client = createRedis(server.url, cfg);
      const sub = createRedis(server.url, cfg, { role: 'subscriber' });
      clients.push(client, sub);
      await waitReady(client, 5000);
      const bus = new FleetBus({ pub: client, sub, keyPrefix: cfg.keyPrefix, replicaId: id });
      await bus.ready();
      replicas.push({
        lease: new FleetLease({ client, config: cfg, bus }),
        store: new RedisStore({ client, config: cfg }),
        bus,
      });
    }
  });
  afterAll(async () => {
    for (const r of replicas) await r.bus.close();
    for (const c of clients) await closeRedis(c);
    await server.stop();
  });

  it('one contender wins; the follower gets the entry the leader filled, notified before the lease ends', async () => {
    const [r1, r2] = [replicas[0]!, replicas[1]!];
    const results = await Promise.all([r1.lease.acquire('cold'), r2.lease.acquire('cold')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const leader = results[0] ? r1 : r2;
    const follower = results[0] ? r2 : r1;
    const entry = makeEntry('cold');
    const t0 = performance.now();
    const waiting = follower.lease.waitForFill('cold', follower.store);
    await sleep(80);
    await leader.store.set(entry);
    await leader.lease.release('cold');
    const got = await waiting;
    expect(got).toEqual(entry);
    expect(performance.now() - t0).toBeLessThan(cfg.leaseMs);
    expect(await leader.lease.acquire('cold')).toBe(true); // released
    await leader.lease.release('cold');
  });

  it('a dead leader stalls the follower no longer than the lease', async () => {
    const [r1, r2] = [replicas[0]!, replicas[1]!];
    expect(await r1.lease.acquire('dead')).toBe(true); // r1 "dies": never fills, never releases
    expect(await r2.lease.acquire('dead')).toBe(false);
    const t0 = performance.now();
    expect(await r2.lease.waitForFill('dead', r2.store)).toBeUndefined();
    const waited = performance.now() - t0;
    expect(waited).toBeLessThan(cfg.leaseMs + 200);
    expect(await r2.lease.acquire('dead')).toBe(true); // the lease expired: r2 may lead now
  });

  it('a leader that finishes without storing releases the followers at once', async () => {
    const [r1, r2] = [replicas[0]!, replicas[1]!];
    expect(await r1.lease.acquire('uncacheable')).toBe(true);
    const waiting = r2.lease.waitForFill('uncacheable', r2.store);
    await sleep(30);
    const t0 = performance.now();
    await r1.lease.release('uncacheable');
    expect(await waiting).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(150);
  });

  it('release only deletes its own lease', async () => {
    const [r1, r2] = [replicas[0]!, replicas[1]!];
    expect(await r1.lease.acquire('mine')).toBe(true);
    await sleep(cfg.leaseMs + 50); // expired
    expect(await r2.lease.acquire('mine')).toBe(true);
    await r1.lease.release('mine'); // stale token: must not free r2's lease
    expect(await r1.lease.acquire('mine')).toBe(false);
    await r2.lease.release('mine');
  });

  it('Redis down: acquire says lead, waitForFill and release return at once, nothing throws', async () => {
    await server.kill();
    try {
      const r1 = replicas[0]!;
      const t0 = performance.now();
      expect(await r1.lease.acquire('x')).toBe(true);
      expect(await r1.lease.waitForFill('x', r1.store)).toBeUndefined();
      await r1.lease.release('x');
      expect(performance.now() - t0).toBeLessThan(cfg.commandTimeoutMs * 3);
    } finally {
      await server.restart();
    }
  });
});
