/**
 * A fleet of two replicas on one real redis-server, UPSTREAM_QUORUM 2, three
 * upstreams of which the fastest lies about final blocks. Concurrent requests
 * for one final block on both replicas: the vote happens once, under the
 * fleet lease (three upstream requests in all: the liar, one honest, the
 * tie-breaker), and every client of either replica gets the honest block, kept
 * final in the shared tier.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { counter, get, maxAge, startReplica, type Replica } from '../helpers/replica.js';
import { startChainFake, type ChainFake, SLOWER_MS } from '../helpers/chain-fake.js';
import { answerBlocks, blockAsks, FINAL, forgedBlock, HEAD, honestBlock, servedHash } from './kit.js';

const describe = describeRedis();

describe('two replicas, one Redis, quorum 2, one liar', () => {
  let redis: RedisServer;
  let fakes: ChainFake[] = [];
  let replicas: Replica[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    fakes = await Promise.all([startChainFake(HEAD), startChainFake(HEAD), startChainFake(HEAD)]);
    const [a, b, liar] = fakes as [ChainFake, ChainFake, ChainFake];
    answerBlocks(a, honestBlock);
    answerBlocks(b, honestBlock);
    answerBlocks(liar, (h) => forgedBlock(h));
    a.delay(SLOWER_MS); // the liar is the fastest, by far: asked first
    b.delay(SLOWER_MS);
    const patch = { redisUrl: redis.url, upstream: { quorum: 2, hedgeAfterMs: 0 } };
    replicas = await Promise.all([
      startReplica(
        fakes.map((f) => f.url),
        patch,
      ),
      startReplica(
        fakes.map((f) => f.url),
        patch,
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([...fakes.map((f) => f.close()), redis?.stop()]);
  });

  it(
    'concurrent requests on both replicas: one vote in the fleet, ' + 'the honest block everywhere, kept final',
    async () => {
      const path = `/block/detail?h=${FINAL}`;
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) => get(replicas[i % 2]!.url, path)));
      const honest = JSON.parse(honestBlock(FINAL)).data.block_hash as string;
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(servedHash(r.text)).toBe(honest);
        expect(maxAge(r.headers)).toBeGreaterThan(3600);
      }
      expect(fakes.map(blockAsks)).toEqual([1, 1, 1]);
      const votes = await Promise.all(replicas.map((r) => counter(r.url, 'chainproxy_quorum_votes_total')));
      expect(votes[0]! + votes[1]!).toBe(1);
      // Later requests on either replica: hits, no vote, no upstream request.
      for (const r of replicas) expect((await get(r.url, path)).cache).toBe('HIT');
      expect(fakes.map(blockAsks)).toEqual([1, 1, 1]);
    },
  );
});
