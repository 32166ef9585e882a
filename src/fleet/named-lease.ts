/**
 * A named, token-checked, expiring lease: the one thing the fleet leader role
 * (leader.ts) needs from its transport, so another transport (IPC between
 * processes of one machine) can stand in for Redis.
 *
 * Redis: acquire is `SET name token NX PX ttl`; renew and release are Lua
 * compare-and-PEXPIRE / compare-and-DEL, so a lease that expired and was
 * taken by another replica is never extended or dropped by the old holder.
 * Every command runs under its own breaker and deadline (redis/guard.ts):
 * a down Redis answers null (unknown), never throws.
 */
import type { RedisConfig } from '../config/types.js';
import { Breaker } from '../common/breaker.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';

export interface NamedLease {
  /** true: taken for ttlMs; false: held by another token; null: the transport did not answer. */
  acquire(name: string, token: string, ttlMs: number): Promise<boolean | null>;
  /** true: still ours, extended to ttlMs from now; false: lost; null: unknown. */
  renew(name: string, token: string, ttlMs: number): Promise<boolean | null>;
  /** Drops the lease if it is still ours. */
  release(name: string, token: string): Promise<void>;
}

const RENEW_LUA =
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return ` + `redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export function redisNamedLease(client: RedisClient, config: RedisConfig, metrics: Metrics = noopMetrics): NamedLease {
  const guard: RedisGuard = {
    client,
    breaker: new Breaker({ failures: config.breakerFailures, cooldownMs: config.breakerCooldownMs }),
    timeoutMs: config.commandTimeoutMs,
    metrics,
  };
  const key = (name: string): string => `${config.keyPrefix}${name}`;
  return {
    async acquire(name, token, ttlMs) {
      const res = await guarded(guard, 'set', () => client.set(key(name), token, 'PX', ttlMs, 'NX'));
      return res === undefined ? null : res === 'OK';
    },
    async renew(name, token, ttlMs) {
      const res = await guarded(guard, 'set', () => client.eval(RENEW_LUA, 1, key(name), token, String(ttlMs)));
      return res === undefined ? null : res === 1;
    },
    async release(name, token) {
      await guarded(guard, 'set', () => client.eval(RELEASE_LUA, 1, key(name), token));
    },
  };
}
