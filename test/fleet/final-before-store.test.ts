/**
 * A final answer teaches its finality before it is stored, on every replica
 * of a fleet (two replicas, one real redis-server, precise invalidation). No
 * replica can read the block list (the forwarder fails it), so no final
 * height is known but what answers show. An old, final block/detail fetched
 * by one replica is a hit on the other's first request, once that one has
 * heard the final height over the bus; and a replica that follows another's
 * fetch learns the final height from the fill it reads.
 */
import { afterEach, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, PRECISE, SEED } from '../invalidation/kit.js';

const describe = describeRedis();

let redis: RedisServer | undefined;
let sim: SimulatorHandle | undefined;
let front: FakeUpstream | undefined;
let replicas: Replica[] = [];
afterEach(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  replicas = [];
  await front?.close();
  await Promise.all([sim?.close(), redis?.stop()]);
  redis = sim = front = undefined;
});

/** Held answers: the next request for `url` waits until `release()`. */
const holds = new Map<string, { reached: () => void; held: Promise<void> }>();
function hold(url: string): { reached: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  const reach = new Promise<void>((r) => (reached = r));
  holds.set(url, { reached, held });
  return { reached: reach, release };
}

async function start(): Promise<{ a: Replica; b: Replica; head: number; front: FakeUpstream }> {
  [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ seed: SEED, blockIntervalMs: 0 })]);
  const s = sim;
  front = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/block/list')) return sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}');
    const h = holds.get(url);
    if (h !== undefined) {
      holds.delete(url);
      h.reached();
      await h.held;
    }
    const r = await fetch(s.url + url);
    sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
  });
  const patch = {
    redisUrl: redis.url,
    invalidation: PRECISE,
    upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
  };
  replicas = await Promise.all([startReplica([front.url], patch), startReplica([front.url], patch)]);
  const [a, b] = replicas as [Replica, Replica];
  const head = s.chain.head();
  await Promise.all([covered(a.url, head), covered(b.url, head)]);
  expect(a.tracker.finalHeight()).toBeNull();
  expect(b.tracker.finalHeight()).toBeNull();
  return { a, b, head, front };
}

describe('a final block/detail across a fleet while no final height is known', () => {
  it("is a hit on the other replica's first request and on the second of the one that fetched it", async () => {
    const { a, b, head, front } = await start();
    const old = `/block/detail?h=${head - 100}`;
    expect((await get(a.url, old)).cache).toBe('MISS');
    await waitFor(() => b.tracker.finalHeight() === head - 100, 5000, 'the final height on the bus');
    expect((await get(b.url, old)).cache).toBe('HIT');
    expect((await get(a.url, old)).cache).toBe('HIT');
    expect(front.requests.filter((r) => r.url === old).length).toBe(1);
  });

  it("a follower learns the final height from the leader's fill", async () => {
    const { a, b, head, front } = await start();
    // B hears no heads on the bus: what it knows of the final height comes from the fill.
    b.fleet!.bus.removeAllListeners('head');
    const old = `/block/detail?h=${head - 100}`;
    const held = hold(old);
    const viaA = get(a.url, old);
    await held.reached; // A leads the flight: its lease is taken
    const viaB = get(b.url, old);
    // B's flight has begun (its lease request sent while A's is held): B follows A.
    await waitFor(() => b.resolver.inFlight >= 1, 5000, "B's flight");
    held.release();
    const [ra, rb] = await Promise.all([viaA, viaB]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.text).toContain('"is_finality":true');
    expect(front.requests.filter((r) => r.url === old).length).toBe(1);
    expect(b.tracker.finalHeight()).toBe(head - 100);
    expect((await get(b.url, old)).cache).toBe('HIT');
  });
});
