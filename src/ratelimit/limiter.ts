/**
 * The rate limiter other modules use (API routes, fast hit path, batch and
 * stream endpoints):
 *
 *   const key = limiter.clientKey(ip, request.headers['x-api-key']);
 *   if (key === UNKNOWN_API_KEY) → 401
 *   const retryMs = limiter.take(key, cost);   // 0: admitted; else ms to wait
 *
 * Identity: a request with `X-API-Key` is charged to its key (`key:<name>`,
 * its own budget, wherever it comes from); without one, to its client IP
 * (IPv6 per /64) with the default budget, unless the IP is in
 * RATE_LIMIT_ALLOW (never limited). Counting is local and synchronous
 * (buckets.ts); with Redis the buckets are reconciled with the fleet in the
 * background (fleet-sync.ts), so `take` never waits for Redis.
 */
import type { ApiKeyConfig, RateLimitConfig } from '../config/types.js';
import type { RedisGuard } from '../redis/guard.js';
import { ApiKeyTable, type ApiKey } from './api-keys.js';
import { BucketTable, type Budget } from './buckets.js';
import { AddressList } from '../common/address-list.js';
import { clientIdentity } from '../common/client-identity.js';
import { FleetSync } from './fleet-sync.js';

/** clientKey() of a request whose X-API-Key is not configured (answer 401). */
export const UNKNOWN_API_KEY = '\u0000unknown-key';

/** clientKey() of an allowlisted IPv6 client (IPv4 keys are looked up in the allowlist once per bucket). */
const ALLOWLISTED = '\u0000allowlisted';

export interface RateLimiterOptions {
  config: RateLimitConfig;
  allow: readonly string[];
  apiKeys: readonly ApiKeyConfig[];
  /** Redis side (null: this replica counts alone). */
  redis: { guard: RedisGuard; keyPrefix: string } | null;
  clock?: () => number;
  /** Fleet reconciliation interval (100 ms). */
  syncIntervalMs?: number;
  /** Bound on client buckets held (100 000). */
  maxBuckets?: number;
}

export const DEFAULT_SYNC_INTERVAL_MS = 100;
const DEFAULT_MAX_BUCKETS = 100_000;

export class RateLimiter {
  readonly #clock: () => number;
  readonly #keys: ApiKeyTable;
  readonly #allow: AddressList;
  readonly #buckets: BucketTable;
  readonly #fleet: FleetSync | null;
  readonly #default: Budget;
  readonly #unlimited: Budget;
  /** Default budget (requests per window per client IP). */
  readonly max: number;
  readonly windowMs: number;

  constructor(o: RateLimiterOptions) {
    this.#clock = o.clock ?? Date.now;
    this.max = o.config.max;
    this.windowMs = o.config.windowMs;
    this.#keys = new ApiKeyTable(o.apiKeys, o.config.windowMs);
    this.#allow = new AddressList(o.allow);
    this.#default = { max: o.config.max, windowMs: o.config.windowMs, unlimited: false };
    this.#unlimited = { max: 1, windowMs: o.config.windowMs, unlimited: true };
    this.#buckets = new BucketTable((k) => this.#budgetOf(k), o.maxBuckets ?? DEFAULT_MAX_BUCKETS);
    this.#fleet =
      o.redis === null
        ? null
        : new FleetSync({ guard: o.redis.guard, prefix: `${o.redis.keyPrefix}{rl}:`, intervalMs: o.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS, clock: this.#clock });
    if (this.#fleet !== null) {
      const fleet = this.#fleet;
      this.#buckets.onActive = (b) => fleet.watch(b);
    }
  }

  /**
   * Who pays for a request: `key:<name>` for a configured X-API-Key,
   * UNKNOWN_API_KEY for any other X-API-Key, else the client IP's key.
   */
  clientKey(ip: string, apiKey: string | string[] | undefined): string {
    if (apiKey === undefined) {
      const key = clientIdentity(ip);
      // IPv6 keys are /64 prefixes: decide the allowlist on the address itself.
      return key !== ip && !this.#allow.empty && this.#allow.has(ip) ? ALLOWLISTED : key;
    }
    if (typeof apiKey !== 'string') return UNKNOWN_API_KEY;
    return this.#keys.find(apiKey)?.clientKey ?? UNKNOWN_API_KEY;
  }

  /** 0 when admitted (charged `cost`); else ms until the client may retry (nothing charged). */
  take(clientKey: string, cost = 1): number {
    return this.#buckets.take(clientKey, cost, this.#clock());
  }

  /** The API key behind a client key (for names in logs and metrics), if any. */
  apiKey(clientKey: string): ApiKey | undefined {
    return this.#keys.byClientKey(clientKey);
  }

  /** Budget (requests per window) of a client key. */
  limitOf(clientKey: string): number {
    return this.#keys.byClientKey(clientKey)?.max ?? this.max;
  }

  keyNames(): string[] {
    return this.#keys.names();
  }

  get buckets(): number {
    return this.#buckets.size;
  }

  /** null without Redis; else whether the last reconciliation round reached Redis. */
  fleetOk(): boolean | null {
    return this.#fleet === null ? null : this.#fleet.ok;
  }

  /** Starts the background reconciliation (no-op without Redis). */
  start(): void {
    this.#fleet?.start();
  }

  /** One reconciliation round now (tests; no-op without Redis). */
  async sync(): Promise<void> {
    await this.#fleet?.sync();
  }

  async close(): Promise<void> {
    await this.#fleet?.sync();
    await this.#fleet?.close();
  }

  #budgetOf(clientKey: string): Budget {
    const key = this.#keys.byClientKey(clientKey);
    if (key !== undefined) return { max: key.max, windowMs: key.windowMs, unlimited: false };
    return clientKey === ALLOWLISTED || this.#allow.has(clientKey) ? this.#unlimited : this.#default;
  }
}
