/**
 * The passthrough cache across a fleet on one Redis: a replica's answer is
 * another's HIT (the Content-Type carried through the Redis codec), N cold
 * requests spread over the replicas cost the backend one request, and a purge
 * by prefix on one replica reaches the other.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { passConfig, raw } from './kit.js';

const describe = describeRedis();

describe('the passthrough cache on a fleet', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let backend: FakeUpstream;
  let a: Replica;
  let b: Replica;
  const held: Array<() => void> = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    backend = await startFakeUpstream((req, res) => {
      const n = backend.count((req.url ?? '').split('?')[0]);
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.end(`n,${n}`);
      };
      if (req.url?.startsWith('/explorer/held')) held.push(answer);
      else answer();
    });
    const patch = {
      redisUrl: redis.url,
      passthrough: passConfig([{ prefix: '/explorer', target: backend.url }], {
        cache: { '/explorer': { kind: 'ttl', ms: 60_000 } },
      }),
    };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), redis?.stop(), backend?.close()]);
  });

  it("one replica's answer is the other's HIT, with its Content-Type", async () => {
    const viaA = await get(a.url, '/explorer/list');
    expect([viaA.cache, viaA.text]).toEqual(['MISS', 'n,1']);
    const viaB = await get(b.url, '/explorer/list');
    expect([viaB.cache, viaB.text, viaB.headers['content-type']]).toEqual(['HIT', 'n,1', 'text/csv']);
    expect(backend.count('/explorer/list')).toBe(1);
  });

  it('cold requests on both replicas cost the backend one request', async () => {
    const answers = Promise.all([a, b, a, b, a, b].map((r) => get(r.url, '/explorer/held')));
    await backend.until(() => held.length === 1, 'the one backend request');
    held[0]!();
    const rs = await answers;
    expect(new Set(rs.map((r) => r.text))).toEqual(new Set(['n,1']));
    expect(backend.count('/explorer/held')).toBe(1);
    expect(held).toHaveLength(1);
  });

  it('a purge by prefix on one replica reaches the other', async () => {
    expect((await get(b.url, '/explorer/list')).cache).toBe('HIT');
    const r = await raw(a.url, '/purge?tag=prefix:/explorer', { method: 'POST' });
    expect(r.status).toBe(200);
    await waitFor(async () => (await get(b.url, '/explorer/list')).cache === 'MISS', 20_000, 'the purge on b');
  });
});
