/**
 * The fleet's background work done once (src/fleet/duty.ts, leader.ts), on a
 * real redis-server with several replicas in one process and the simulator
 * counting upstream requests by path: an idle fleet of three asks for heads
 * and the pending pool about as often as one replica; a dead leader is
 * replaced within two probe intervals and the new one probes; a follower
 * whose bus is silent probes on its own (counted) and follows again when the
 * bus speaks.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter, dataOf, get, startReplica, type Replica, untilFollows } from '../helpers/replica.js';

const describe = describeRedis();

/**
 * The probe interval (and pending-poll interval) of every replica here: long
 * enough that a loaded test machine's event-loop stalls do not pass for a
 * dead leader or a silent bus (the lease lasts 1.5 intervals).
 */
const INTERVAL = 1000;
const PUBLIC_BASE_URL = 'https://api.example.test';

describe('fleet leader: background work once per fleet', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let prefixes = 0;
  const closers: Array<() => Promise<void>> = [];
  const closeLater = (c: () => Promise<void>) => closers.push(c);
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 11 })]);
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  /** A replica of a fresh fleet (its own key prefix) per test. */
  function patch(prefix: string) {
    const base = defaultConfig();
    return {
      redisUrl: redis.url,
      publicBaseUrl: PUBLIC_BASE_URL,
      redis: { keyPrefix: prefix },
      upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 0 },
      invalidation: { ...base.invalidation, mode: 'precise' as const, pendingPollMs: INTERVAL },
    };
  }
  async function fleetOf(n: number, prefix = `lead${++prefixes}:`): Promise<Replica[]> {
    const rs: Replica[] = [];
    for (let i = 0; i < n; i++) {
      const r = await startReplica([sim.url], patch(prefix));
      closeLater(() => r.close());
      rs.push(r);
    }
    return rs;
  }
  const leaders = (rs: Replica[]) => rs.filter((r) => r.duty?.isLeader() === true);
  const upstreamCount = (path: string) => sim.stats()[path] ?? 0;
  const probesOf = (r: Replica) => counter(r.url, 'chainproxy_head_probes_total');
  /**
   * `pred` (a /metrics scrape) looked at once per tenth of an interval,
   * not on every 5 ms poll (the scrapes would load the replicas).
   */
  const sparingly = (pred: () => Promise<boolean>): (() => Promise<boolean>) => {
    let next = 0;
    return async () => {
      if (performance.now() < next) return false;
      next = performance.now() + INTERVAL / 10;
      return pred();
    };
  };

  /** Upstream requests for heads and the pending pool while `r` makes `n` probes. */
  async function whileProbing(r: Replica, n: number): Promise<{ heads: number; pool: number }> {
    const [h0, p0, own0] = [upstreamCount('block/max'), upstreamCount('tx/list/pending'), await probesOf(r)];
    await waitFor(
      sparingly(async () => (await probesOf(r)) >= own0 + n),
      20 * n * INTERVAL,
      `${n} probes of the leader`,
    );
    return { heads: upstreamCount('block/max') - h0, pool: upstreamCount('tx/list/pending') - p0 };
  }

  it('an idle fleet of three asks block/max and tx/list/pending about as often as one replica', async () => {
    const [a] = await fleetOf(1, 'idle:');
    if (a === undefined) throw new Error('no replica');
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const N = 12;
    const one = await whileProbing(a, N);
    expect(one.heads).toBeGreaterThanOrEqual(N);
    expect(one.pool).toBeGreaterThan(0);

    const more = await fleetOf(2, 'idle:');
    const fleet = [a, ...more];
    expect(leaders(fleet)).toEqual([a]);
    const three = await whileProbing(a, N);
    // The probe span is the same (N probes of the leader): the fleet adds at most 10 % to what one
    // replica asks in it (a poll per interval at most, like the probes, however slow the machine made it).
    expect(three.heads).toBeLessThanOrEqual(Math.ceil(1.1 * one.heads));
    expect(three.pool).toBeLessThanOrEqual(Math.ceil(1.1 * Math.max(one.pool, N)));
    // The followers do not probe, and know each upstream's head from the leader.
    for (const r of more) {
      expect(r.duty?.turn()).toBe('follower');
      expect(r.pool.status()[0]?.head).toBe(sim.chain.head());
      expect((await get(r.url, '/readyz')).status).toBe(200);
    }
    expect(leaders(fleet)).toEqual([a]);
  });

  it('a dead leader is replaced within two probe intervals, the new leader probes, and only one leads', async () => {
    const fleet = await fleetOf(3);
    await waitFor(() => leaders(fleet).length === 1, INTERVAL * 4, 'one leader');
    const old = leaders(fleet)[0];
    if (old === undefined || old.fleet === null) throw new Error('no leader');
    const rest = fleet.filter((r) => r !== old);
    // The leader dies for the fleet: its Redis connection is gone (no renewal, no heartbeat, no release).
    old.fleet.client.disconnect();
    const diedAt = performance.now();
    await waitFor(() => leaders(rest).length === 1, INTERVAL * 10, 'a follower to take over');
    const tookMs = performance.now() - diedAt;
    expect(tookMs).toBeLessThanOrEqual(2 * INTERVAL);
    const next = leaders(rest)[0];
    if (next === undefined) throw new Error('no new leader');
    const before = await probesOf(next);
    await waitFor(
      sparingly(async () => (await probesOf(next)) >= before + 3),
      INTERVAL * 30,
      'the new leader to probe',
    );
    // Settled: never two leaders, sampled over several lease periods.
    for (let seen = 0; seen < 40; seen++) {
      expect(leaders(fleet).length).toBeLessThanOrEqual(1);
      await new Promise((r) => setTimeout(r, INTERVAL / 10));
    }
    expect(leaders(fleet)).toEqual([next]);
    expect(await counter(next.url, 'chainproxy_fleet_leader')).toBe(1);
    expect(await counter(next.url, 'chainproxy_fleet_leader_changes_total')).toBe(1);
  });

  it(
    'a follower whose bus is silent probes on its own (counted), ' + 'then follows the leader when the bus speaks',
    async () => {
      const prefix = 'silent:';
      // A leader that holds the lease and never speaks (its process hung).
      const ghost = new Redis(redis.url, { lazyConnect: false });
      closeLater(() => ghost.quit().then(() => undefined));
      const ns = `b${createHash('sha1').update(PUBLIC_BASE_URL).digest('base64url').slice(0, 12)}:`;
      const lease = `leader:${ns}`;
      await ghost.set(`${prefix}${lease}`, 'ghost', 'PX', 120_000);
      const [f] = await fleetOf(1, prefix);
      if (f === undefined) throw new Error('no replica');
      expect(f.duty?.isLeader()).toBe(false);
      const heads0 = upstreamCount('block/max');
      await waitFor(
        sparingly(async () => (await counter(f.url, 'chainproxy_fleet_self_probes_total')) >= 3),
        INTERVAL * 30,
        'self probes',
      );
      expect(upstreamCount('block/max')).toBeGreaterThan(heads0);
      expect(f.duty?.turn()).toBe('alone');

      // The leader speaks: heartbeats every half interval, with each upstream's head.
      const url = (dataOf((await get(f.url, '/status')).text)['upstreams'] as Array<{ url: string }>)[0]?.url ?? '';
      const id = createHash('sha1').update(url).digest('base64url').slice(0, 12);
      const told = sim.chain.head() + 3;
      let beats = 0;
      const ticks = new EventEmitter();
      const beat = () => {
        beats++;
        ticks.emit('beat');
        void ghost.publish(
          `${prefix}bus`,
          JSON.stringify({ v: 1, from: 'ghost', t: 'heads', lease, heads: [{ id, head: told, ok: true, ageMs: 0 }] }),
        );
      };
      beat();
      const timer = setInterval(beat, INTERVAL / 2);
      closeLater(async () => clearInterval(timer));
      if (f.fleet === null) throw new Error('no fleet');
      await untilEmitted(
        f.fleet.bus,
        'heads',
        () => f.pool.status()[0]?.head === told,
        "the leader's head of the upstream",
        INTERVAL * 10,
      );
      expect(f.duty?.turn()).toBe('follower');
      const self = await counter(f.url, 'chainproxy_fleet_self_probes_total');
      const from = beats;
      await untilEmitted(ticks, 'beat', () => beats >= from + 8, 'four intervals of heartbeats', INTERVAL * 40);
      // At most one probe already under way when the bus spoke.
      expect(await counter(f.url, 'chainproxy_fleet_self_probes_total')).toBeLessThanOrEqual(self + 1);
      expect(f.duty?.turn()).toBe('follower');
    },
  );

  it("a follower's head entry stays fresh past its TTL while the leader's heartbeats confirm the head", async () => {
    const prefix = `lead${++prefixes}:`;
    const fleet = await fleetOf(2, prefix);
    await waitFor(() => leaders(fleet).length === 1, INTERVAL * 4, 'one leader');
    const f = fleet.find((r) => r.duty?.isLeader() !== true);
    if (f === undefined) throw new Error('no follower');
    await untilFollows(f, 'the other follows', INTERVAL * 4);
    const first = await get(f.url, '/block/max');
    expect(first.status).toBe(200);
    // The leader's heartbeats, heard on the bus like any replica hears them.
    const listener = new Redis(redis.url);
    closeLater(() => listener.quit().then(() => undefined));
    let beats = 0;
    listener.on('message', (_channel: string, text: string) => {
      if ((JSON.parse(text) as { t?: string }).t === 'heads') beats++;
    });
    await listener.subscribe(`${prefix}bus`);
    // Five heartbeats: over two seconds, twice block/max's 1 s TTL.
    await untilEmitted(listener, 'message', () => beats >= 5, 'five heartbeats', INTERVAL * 20);
    const again = await get(f.url, '/block/max');
    expect(again.cache).toBe('HIT');
    expect(again.headers['etag']).toBe(first.headers['etag']);
    expect(f.duty?.turn()).toBe('follower');
  });
});
