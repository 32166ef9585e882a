/**
 * Fleet-wide single flight: a short Redis lease so N replicas asking for the
 * same cold key make one upstream request. The lease is a NamedLease
 * (named-lease.ts) under this tier's breaker; what is particular to a flight
 * is how a follower gets the fill: from the shared tier, the bus's 'filled'
 * only a hint to look now. (The workers of one machine share no tier: their
 * fill travels in the release through the primary, src/cluster/hub.ts.)
 *
 * Protocol (per cache key K, lease key `keyPrefix + 'lease:' + K`):
 *   1. acquire:  SET lease:K <random token> NX PX leaseMs (NamedLease.acquire)
 *                OK   → this replica is the leader: fetch, store the entry in
 *                       the Redis tier, then release.
 *                nil  → a follower: waitForFill.
 *   2. release:  compare-and-delete (NamedLease.release: DEL only if the value is our token, so a
 *                lease that expired and was taken by another replica is left
 *                alone), then PUBLISH a 'filled' bus message for K.
 *   3. waitForFill: the follower reads the entry from the store at once, then
 *                on every 'filled' notification for K and by polling with a
 *                backoff of 10 → 50 ms. It gives up (undefined: fetch yourself)
 *                when the lease key is gone without an entry (the leader
 *                finished without storing: error or uncacheable answer), or at
 *                the deadline (default leaseMs), so a dead leader stalls nobody
 *                longer than the lease.
 * Redis failure never blocks: acquire returns true (act alone), release and
 * waitForFill swallow errors, nothing throws.
 */
import { randomBytes } from 'node:crypto';
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { RedisConfig } from '../config/types.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import { Breaker } from '../common/breaker.js';
import type { RedisClient } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';
import type { FleetBus } from './bus.js';
import { guardedNamedLease, type NamedLease } from './named-lease.js';

export interface FleetLeaseOptions {
  client: RedisClient;
  config: RedisConfig;
  /** 'filled' notifications; without it followers only poll. */
  bus?: FleetBus | null;
  metrics?: Metrics;
  breaker?: Breaker;
  /** Prefix of lease keys and 'filled' notices after `lease:` (the store's namespace). */
  namespace?: string;
}

export class FleetLease {
  readonly #client: RedisClient;
  readonly #cfg: RedisConfig;
  readonly #bus: FleetBus | null;
  readonly #metrics: Metrics;
  readonly #guard: RedisGuard;
  readonly #named: NamedLease;
  readonly #tokens = new Map<string, string>();
  readonly #ns: string;

  constructor(opts: FleetLeaseOptions) {
    this.#client = opts.client;
    this.#cfg = opts.config;
    this.#bus = opts.bus ?? null;
    this.#metrics = opts.metrics ?? noopMetrics;
    const breaker =
      opts.breaker ?? new Breaker({ failures: opts.config.breakerFailures, cooldownMs: opts.config.breakerCooldownMs });
    this.#guard = { client: opts.client, breaker, timeoutMs: opts.config.commandTimeoutMs, metrics: this.#metrics };
    this.#ns = opts.namespace ?? '';
    this.#named = guardedNamedLease(this.#guard, opts.config.keyPrefix, 'get');
  }

  /** The lease's name (a NamedLease's, under the key prefix). */
  #name(key: string): string {
    return `lease:${this.#ns}${key}`;
  }

  leaseKey(key: string): string {
    return `${this.#cfg.keyPrefix}${this.#name(key)}`;
  }

  /** True: lead the fetch (also when Redis is unavailable). False: wait for the leader. */
  async acquire(key: string): Promise<boolean> {
    const token = randomBytes(12).toString('base64url');
    const ok = await this.#named.acquire(this.#name(key), token, this.#cfg.leaseMs);
    if (ok === null) return true;
    if (!ok) return false;
    this.#tokens.set(key, token);
    return true;
  }

  /** Drops our lease (only if still ours) and tells followers to look. */
  async release(key: string): Promise<void> {
    const token = this.#tokens.get(key);
    if (token === undefined) return;
    this.#tokens.delete(key);
    await this.#named.release(this.#name(key), token);
    if (this.#bus !== null) await this.#bus.publish('filled', this.#ns + key);
  }

  /** The leader's entry once it is in `store`, or undefined (leader gone, deadline, Redis down). */
  async waitForFill(
    key: string,
    store: CacheStore,
    waitMs: number = this.#cfg.leaseMs,
  ): Promise<CacheEntry | undefined> {
    const deadline = Date.now() + waitMs;
    let wake: (() => void) | null = null;
    const filledKey = this.#ns + key;
    const onFilled = (k: string) => {
      if (k === filledKey && wake !== null) wake();
    };
    this.#bus?.on('filled', onFilled);
    try {
      let delay = 10;
      for (;;) {
        const found = await store.get(key);
        if (found !== undefined) return found;
        const exists = await this.#run(() => this.#client.exists(this.leaseKey(key)));
        if (exists === undefined) return undefined;
        if (exists === 0) return store.get(key); // leader finished: last look, then fetch yourself
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(delay, left));
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
        delay = Math.min(delay * 2, 50);
      }
    } finally {
      this.#bus?.off('filled', onFilled);
    }
  }

  #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    return guarded(this.#guard, 'get', command);
  }
}
