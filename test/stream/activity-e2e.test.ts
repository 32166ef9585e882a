/**
 * End to end with the real block reader (precise invalidation): the simulator
 * makes a block, the reader reads its touched set and publishes it, the
 * activity stream sends the event; the stream's own tx/list read is a cache
 * hit. Then a fleet on a real redis-server: one replica reads the block, the
 * other hears the set on the bus, and subscribers on both get the event, for
 * one upstream tx/list read in all.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startReplica, type Replica } from '../helpers/replica.js';
import { covered, PRECISE } from '../invalidation/kit.js';
import { openStream, type SseClient } from './sse-client.js';
import { ACTIVITY, onlyAt, SEED, txListRequests, type ActivityData } from './activity-kit.js';

const describe = describeRedis();

async function watching(url: string, n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const s = (await (await fetch(`${url}/status`)).json()) as { data: { activity: { watched: number } } };
    if (s.data.activity.watched === n) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} watched on ${url}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('/stream/activity with the block reader, alone and in a fleet', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: SEED })]);
    const patch = { redisUrl: redis.url, invalidation: PRECISE, upstream: { probeIntervalMs: 50 } };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('sends the block the reader read to subscribers on both replicas, for one upstream tx/list read', async () => {
    const h0 = sim.chain.head();
    await Promise.all([covered(a, h0), covered(b, h0)]);
    const addr = onlyAt(h0 + 1, [h0 + 1]);
    for (const r of [a, b]) {
      const c = await openStream(r.url, { path: ACTIVITY, query: `?address=${addr}` });
      clients.push(c);
      expect(c.status).toBe(200);
      await watching(r.url, 1);
    }
    const before = txListRequests(sim);
    sim.chain.advance(1);
    await Promise.all(
      clients.map((c) => c.until(() => c.events.some((e) => e.id === String(h0 + 1)), 10_000, 'the block event')),
    );
    // The pool news went out before the block's event: none of it concerned the address (its transaction left the pool,
    // mined).
    for (const c of clients) expect(c.typed('pending')).toEqual([]);
    const [onA, onB] = clients.map((c) => c.events[0]!);
    expect(onA!.id).toBe(String(h0 + 1));
    expect(onA!.data).toBe(onB!.data);
    const d = JSON.parse(onA!.data) as ActivityData;
    expect(d.complete).toBe(true);
    expect(d.txs.length).toBeGreaterThan(0);
    for (const t of d.txs) expect(JSON.stringify(t)).toContain(addr);
    // The reader's read of block h0+1 (one page) is the fleet's only tx/list request for it.
    expect(txListRequests(sim) - before).toBe(1);
  });
});
