/** Shared bits of the Redis tests: a fast-failing tier config and entry factory. */
import type { CacheEntry } from '../../src/cache/types.js';
import type { RedisConfig } from '../../src/config/types.js';

export function redisTestConfig(patch: Partial<RedisConfig> = {}): RedisConfig {
  return {
    commandTimeoutMs: 100,
    keyPrefix: `t${Math.random().toString(36).slice(2, 8)}:`,
    compressAboveBytes: 1024,
    leaseMs: 600,
    breakerFailures: 3,
    breakerCooldownMs: 200,
    heartbeatMs: 5000,
    ...patch,
  };
}

export function makeEntry(key: string, patch: Partial<CacheEntry> = {}, now = Date.now()): CacheEntry {
  const body = Buffer.from(JSON.stringify({ code: 0, msg: 'success', data: { key, server_timestamp: 1700000000000 } }));
  return {
    key,
    status: 200,
    body,
    etag: 'W/"abc"',
    createdAt: now - 1000,
    freshUntil: now + 10_000,
    swrUntil: now + 20_000,
    sieUntil: now + 60_000,
    head: 1234,
    headDependent: true,
    finalAt: 1200,
    negative: false,
    stamps: [{ start: 10, end: 23, kind: 'now', base: 0 }],
    ...patch,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
