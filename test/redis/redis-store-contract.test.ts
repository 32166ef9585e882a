import { afterAll, beforeAll } from 'vitest';
import { closeRedis, createRedis, waitReady } from '../../src/redis/client.js';
import { RedisStore } from '../../src/redis/redis-store.js';
import { cacheStoreContract } from '../cache/store-contract.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { redisTestConfig } from './fixtures.js';

const describe = describeRedis();

describe('RedisStore (shared CacheStore contract)', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  cacheStoreContract('redis', async () => {
    // The contract is not about timeouts: a deadline generous enough for a loaded machine.
    const cfg = redisTestConfig({ commandTimeoutMs: 2000 });
    const client = createRedis(server.url, cfg);
    await waitReady(client, 5000);
    return {
      store: new RedisStore({ client, config: cfg }),
      cleanup: () => closeRedis(client),
    };
  });
});
