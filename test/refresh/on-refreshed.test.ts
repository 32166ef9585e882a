/**
 * The refresh engine on a real resolver with a Redis tier (real redis-server):
 * a head round renews the hot key at the new head, and `onRefreshed` gets the
 * entry the round stored, once, already in the memory tier and in Redis.
 */
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { pino } from 'pino';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import { txList } from '../../src/endpoints/tx-list.js';
import { buildCatalogue } from '../../src/catalogue/index.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { HotBoard } from '../../src/refresh/board.js';
import { RefreshEngine } from '../../src/refresh/engine.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { get, startReplica } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const describe = describeRedis();

describe('onRefreshed on a real resolver', () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 5 })]);
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('gets the entries the round stored, once per round, after they were kept in every tier', async () => {
    const replica = await startReplica([sim.url], {
      redisUrl: redis.url,
      redis: { keyPrefix: 'renew:' },
      upstream: { probeIntervalMs: 200, probeDenseMs: 0 },
    });
    onTestFinished(() => replica.close());
    const fleet = replica.fleet!;
    const list = canonicalize(buildCatalogue().get(txList.path), 'page_size=10', { maxPageSize: 100, maxDays: 365 });
    expect((await get(replica.url, '/tx/list?page_size=10')).status).toBe(200);
    const head = sim.chain.advance(1);
    await untilHead(replica.tracker, (h) => h === head, `head ${head}`, 10_000);

    const rounds: CacheEntry[][] = [];
    const seen: Array<{ inMemory: boolean; inRedis: Promise<CacheEntry | undefined> }> = [];
    const board = new HotBoard();
    const engine = new RefreshEngine({
      board,
      renew: (q) => replica.resolver.renew(q),
      current: () => false,
      acting: null,
      maxKeys: 4,
      counted: { head: () => {}, touched: () => {} },
      onRefreshed: (entries) => {
        rounds.push(entries);
        for (const e of entries)
          seen.push({ inMemory: replica.memory.peek(e.key)?.entry === e, inRedis: fleet.store.get(e.key) });
      },
      logger: pino({ level: 'silent' }),
    });
    board.seen(list);
    await engine.head(head);

    expect(rounds).toHaveLength(1);
    const [entry] = rounds[0]!;
    expect(rounds[0]).toHaveLength(1);
    expect(entry!.key).toBe(list.key);
    expect(entry!.head).toBe(head);
    const newest = (JSON.parse(entry!.body.toString()) as { data: { list: Array<{ block_height: number }> } }).data
      .list[0];
    expect(newest?.block_height).toBe(head);
    expect(seen[0]!.inMemory).toBe(true);
    expect((await seen[0]!.inRedis)?.etag).toBe(entry!.etag);
  });
});
