/**
 * Two replicas share one redis-server while their clocks disagree by an hour.
 * A replica judges the other's entry by its own clock (codec.ts: at least as
 * old as the writer's age at the write plus the time since, which the key's
 * remaining expiry tells): it cannot keep the other's answer past the
 * endpoint's lifetime, whichever clock runs ahead.
 */
import { afterEach, beforeAll, afterAll, expect, it } from 'vitest';
import { request } from 'undici';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { normalAddress } from '../../src/sim/ids.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();
const HOUR = 3_600_000;
/** A fresh address per attempt (a retried test must not find the changed answer already). */
let nextAddress = 20;

describe('clock skew between replicas sharing Redis', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let relay: FakeUpstream;
  /** address/info answers of these addresses carry a changed balance (the upstream's answer changed). */
  const changed = new Set<string>();
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 3 })]);
    relay = await startFakeUpstream(async (req, res) => {
      const url = req.url ?? '/';
      const up = await request(sim.url + url);
      let body = await up.body.text();
      const address = new URL(url, 'http://x').searchParams.get('address');
      if (url.startsWith('/address/info') && address !== null && changed.has(address))
        body = body.replace(/"balance":"[^"]*"/, '"balance":"123456789"');
      sendJson(res, up.statusCode, body);
    });
  });
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    replicas = [];
  });
  afterAll(async () => {
    await relay?.close();
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it.each([
    ['the writer runs an hour ahead', HOUR, 0],
    ['the reader runs an hour behind', 0, -HOUR],
  ])('%s: the reader keeps its answer no longer than the lifetime', async (_, writerSkew, readerSkew) => {
    const patch = { redisUrl: redis.url };
    const writer = await startReplica([relay.url], patch, () => Date.now() + writerSkew);
    const reader = await startReplica([relay.url], patch, () => Date.now() + readerSkew);
    replicas = [writer, reader];
    const address = normalAddress(3, nextAddress++);
    const path = `/address/info?address=${address}`;
    const first = await get(writer.url, path);
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    const written = Date.now();
    const kept = writer.memory.peek(`address/info?address=${address}`)!.entry;
    const lifetime = kept.freshUntil - kept.createdAt;
    expect(lifetime).toBeLessThan(30_000);
    await waitFor(async () => (await get(reader.url, path)).cache === 'HIT', 5000, 'the reader takes it from Redis');
    changed.add(address);
    // The reader serves the changed answer once the lifetime has passed (today: an hour later).
    await waitFor(async () => (await get(reader.url, path)).text.includes('123456789'), lifetime + 4000, 'new answer');
    expect(Date.now() - written).toBeLessThan(lifetime + 2500);
  });
});
