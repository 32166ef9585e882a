/**
 * A replica that stops while it reads a block (precise invalidation, the
 * block's lease its) reads it to the end and shares it: the fleet's record
 * gets the block's complete set, not an incomplete one or none (with which
 * every replica would treat the block as unknown and refetch what it may have
 * changed). Upstream: a forwarder on a real socket in front of a simulator,
 * whose answer to the block's transaction page is slow; real redis-server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startReplica } from '../helpers/replica.js';
import { covered, PRECISE, SEED } from '../invalidation/kit.js';

const describe = describeRedis();
/** How long the upstream takes to answer the block's transaction page while the test holds it. */
const SLOW_MS = 500;

describe('a replica stopping during a block read', () => {
  let redis: RedisServer;
  let chain: SimulatorHandle;
  let upstream: FakeUpstream;
  let slow: number | null = null;
  beforeAll(async () => {
    [redis, chain] = await Promise.all([
      startRedisServer(),
      startSimulator({ seed: SEED, blockIntervalMs: 0, startTime: Date.now() }),
    ]);
    upstream = await startFakeUpstream(async (req, res) => {
      const url = req.url ?? '/';
      if (slow !== null && url.startsWith('/tx/list?') && url.includes(`block_height=${slow}`))
        await new Promise((r) => setTimeout(r, SLOW_MS));
      const r = await fetch(chain.url + url);
      sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
    });
  });
  afterAll(async () => {
    await upstream?.close();
    await Promise.all([chain?.close(), redis?.stop()]);
  });

  it('reads the block to the end and records its complete set', async () => {
    const a = await startReplica([upstream.url], {
      redisUrl: redis.url,
      redis: { keyPrefix: 'closing:' },
      upstream: { probeIntervalMs: 100, probeDenseMs: 0, headMarginBlocks: 100 },
      invalidation: { ...PRECISE, pendingPollMs: 0 },
    });
    const head = chain.chain.head();
    await covered(a.url, head);
    slow = head + 1;
    chain.chain.advance(1);
    const held = (): boolean => upstream.requests.some((r) => r.url.includes(`block_height=${head + 1}`));
    await upstream.until(held, 'the block read asking for its transactions');
    // Stopped with the block's page still on its way.
    await a.close();
    const client = new Redis(redis.url);
    try {
      const members = await client.zrangebyscore('closing:touched:record', head + 1, head + 1);
      const sets = members.map((m) => (JSON.parse(m) as { set: { height: number; complete: boolean } }).set);
      expect(sets).toEqual([expect.objectContaining({ height: head + 1, complete: true })]);
    } finally {
      client.disconnect();
    }
  });
});
