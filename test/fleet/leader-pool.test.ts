/**
 * The pending-pool poll runs once per fleet: the leader polls, and a
 * follower (which does not) stales its pending list when the leader's poll
 * sees the pool change between blocks. Upstream: a forwarder on a real socket
 * in front of two simulators with the same seed; the pool comes from the
 * second, which the test moves one block ahead (the pool changes, the chain
 * the proxy follows does not). Real redis-server, two replicas.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter, get, startReplica, type Replica, untilFollows } from '../helpers/replica.js';
import { content, covered, PRECISE, SEED, truth } from '../invalidation/kit.js';

const describe = describeRedis();
/** Probe interval: a loaded machine's event-loop stalls stay well below it (the lease lasts 1.5 intervals). */
const INTERVAL = 1000;
const LIST = '/tx/list/pending';

describe('fleet leader: the pending-pool poll once per fleet', () => {
  let redis: RedisServer;
  let chain: SimulatorHandle;
  let pool: SimulatorHandle;
  let upstream: FakeUpstream;
  const replicas: Replica[] = [];
  beforeAll(async () => {
    const startTime = Date.now();
    [redis, chain, pool] = await Promise.all([
      startRedisServer(),
      startSimulator({ seed: SEED, blockIntervalMs: 0, startTime }),
      startSimulator({ seed: SEED, blockIntervalMs: 0, startTime }),
    ]);
    upstream = await startFakeUpstream(async (req, res) => {
      const url = req.url ?? '/';
      const from = /^\/tx\/(list\/pending|detail)(\?|$)/.test(url) ? pool : chain;
      const r = await fetch(from.url + url);
      sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
    });
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    await upstream?.close();
    await Promise.all([chain?.close(), pool?.close(), redis?.stop()]);
  });

  const start = async (): Promise<Replica> => {
    const r = await startReplica([upstream.url], {
      redisUrl: redis.url,
      redis: { keyPrefix: 'pool:' },
      upstream: { probeIntervalMs: INTERVAL, probeDenseMs: 0, headMarginBlocks: 100 },
      invalidation: { ...PRECISE, pendingPollMs: INTERVAL },
    });
    replicas.push(r);
    return r;
  };
  const polls = async (n: number): Promise<void> => {
    await upstream.arrived(upstream.count(LIST) + n, LIST, `${n} polls`);
  };

  it("a follower's pending list is staled by the leader's poll that saw the pool change", async () => {
    const a = await start();
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const b = await start();
    await untilFollows(b, 'the second replica follows', INTERVAL * 4);
    await covered(b.url, chain.chain.head());
    await polls(3);
    const first = await get(b.url, LIST);
    expect(content(first.text)).toBe(await truth(pool.url, LIST));
    expect((await get(b.url, LIST)).cache).toBe('HIT');
    // Kept while the leader's polls see no change.
    await polls(3);
    expect((await get(b.url, LIST)).cache).toBe('HIT');

    pool.chain.advance(1);
    await polls(2);
    const r = await get(b.url, LIST);
    expect(r.cache).toBe('MISS');
    expect(content(r.text)).not.toBe(content(first.text));
    expect(content(r.text)).toBe(await truth(pool.url, LIST));
    // B followed all along: it never led, so the change reached it from the leader.
    expect(await counter(b.url, 'chainproxy_fleet_leader_changes_total')).toBe(0);
    expect(await counter(b.url, 'chainproxy_fleet_self_probes_total')).toBe(0);
  });

  it('a follower that takes the lease reads again no transfer the fleet already read', async () => {
    const a = await start();
    await waitFor(() => a.duty?.isLeader() === true, INTERVAL * 4, 'the first replica leads');
    const b = await start();
    await untilFollows(b, 'the second replica follows', INTERVAL * 4);
    await covered(b.url, chain.chain.head());
    await polls(2);
    // The reader's own lookups of a pool transfer's recipient (tx/detail), by hash.
    const lookups = (): string[] =>
      upstream.requests
        .filter((r) => r.url.startsWith('/tx/detail?') && r.headers['x-chainproxy-purpose'] !== undefined)
        .map((r) => r.url);
    const read = lookups();
    // The pool holds NRC20 transfers: the leader's first poll read every recipient.
    expect(read.length).toBeGreaterThan(0);
    await a.close();
    await waitFor(() => b.duty?.isLeader() === true, INTERVAL * 4, 'the follower takes the lease');
    await polls(2);
    expect(await counter(b.url, 'chainproxy_fleet_leader_changes_total')).toBe(1);
    // The pool did not change: what the leader read and published is not read again.
    expect(lookups()).toEqual(read);
  });
});
