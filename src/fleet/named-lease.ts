/**
 * A named, token-checked, expiring lease: the one lease of the fleet. Redis
 * serves it with keys (here); the cluster primary serves it to its workers
 * from a map (src/cluster/hub.ts: the same token check and expiry, on its
 * clock). The fleet leader role (leader.ts) uses it as is; a Redis fleet's
 * single flight is one of these named `lease:<namespace><key>` plus the wait
 * for the leader's fill (lease.ts). The workers' single flight asks the
 * primary for more than a NamedLease gives (hub.ts says what, and why).
 *
 * Redis: acquire is `SET name token NX PX ttl`; renew and release are Lua
 * compare-and-PEXPIRE / compare-and-DEL, so a lease that expired and was
 * taken by another replica is never extended or dropped by the old holder.
 * Every command runs under a breaker and deadline (redis/guard.ts):
 * a down Redis answers null (unknown), never throws.
 */
import type { RedisConfig } from '../config/types.js';
import { Breaker } from '../common/breaker.js';
import { noopMetrics, type Metrics, type TierOp } from '../metrics/types.js';
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

/** Named leases in Redis under `keyPrefix`, each command under `guard`; `op`: the tier operation of its errors. */
export function guardedNamedLease(guard: RedisGuard, keyPrefix: string, op: TierOp): NamedLease {
  const { client } = guard;
  const key = (name: string): string => `${keyPrefix}${name}`;
  return {
    async acquire(name, token, ttlMs) {
      const res = await guarded(guard, op, () => client.set(key(name), token, 'PX', ttlMs, 'NX'));
      return res === undefined ? null : res === 'OK';
    },
    async renew(name, token, ttlMs) {
      const res = await guarded(guard, op, () => client.eval(RENEW_LUA, 1, key(name), token, String(ttlMs)));
      return res === undefined ? null : res === 1;
    },
    async release(name, token) {
      await guarded(guard, op, () => client.eval(RELEASE_LUA, 1, key(name), token));
    },
  };
}

/** The fleet leader's lease in Redis: its own breaker. */
export function redisNamedLease(client: RedisClient, config: RedisConfig, metrics: Metrics = noopMetrics): NamedLease {
  const breaker = new Breaker({ failures: config.breakerFailures, cooldownMs: config.breakerCooldownMs });
  return guardedNamedLease({ client, breaker, timeoutMs: config.commandTimeoutMs, metrics }, config.keyPrefix, 'set');
}
