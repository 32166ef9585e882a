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
 *
 * A second table counts the upstream requests each IP client leads (its miss
 * budget, `takeMiss`), reconciled the same way under its own Redis keys; API
 * keys pay for misses with credits from their own bucket (`take`).
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
  config: Pick<RateLimitConfig, 'enabled' | 'max' | 'windowMs'>;
  allow: readonly string[];
  apiKeys: readonly ApiKeyConfig[];
  /** Redis side (null: this replica counts alone). */
  redis: { guard: RedisGuard; keyPrefix: string } | null;
  clock?: () => number;
  /** Fleet reconciliation interval (100 ms). */
  syncIntervalMs?: number;
  /** Upstream requests an IP client may lead per window (0 or absent: no miss budget). */
  missBudget?: number;
  /** Bound on client buckets held, per table (RATE_LIMIT_MAX_CLIENTS; 100 000). */
  maxBuckets?: number;
}

const DEFAULT_SYNC_INTERVAL_MS = 100;
const DEFAULT_MAX_BUCKETS = 100_000;

export class RateLimiter {
  readonly #clock: () => number;
  #keys!: ApiKeyTable;
  #allow!: AddressList;
  readonly #buckets: BucketTable;
  readonly #fleet: FleetSync | null;
  readonly #misses: BucketTable;
  readonly #missFleet: FleetSync | null;
  #default!: Budget;
  #unlimited!: Budget;
  #missDefault!: Budget;
  /** Default budget (requests per window per client IP). */
  max = 0;
  windowMs = 0;
  /** Upstream requests an IP client may lead per window (0: no miss budget). */
  missBudget = 0;

  constructor(o: RateLimiterOptions) {
    this.#clock = o.clock ?? Date.now;
    this.#set(o);
    this.#buckets = new BucketTable((k) => this.#budgetOf(k), o.maxBuckets ?? DEFAULT_MAX_BUCKETS);
    this.#misses = new BucketTable(
      (k) => (this.#budgetOf(k).unlimited ? this.#unlimited : this.#missDefault),
      o.maxBuckets ?? DEFAULT_MAX_BUCKETS,
    );
    this.#fleet = this.#sync(o, '{rl}', this.#buckets);
    this.#missFleet = this.#sync(o, '{mb}', this.#misses);
  }

  #set(o: Pick<RateLimiterOptions, 'config' | 'allow' | 'apiKeys' | 'missBudget'>): void {
    this.max = o.config.max;
    this.windowMs = o.config.windowMs;
    this.#keys = new ApiKeyTable(o.apiKeys, o.config.windowMs);
    this.#allow = new AddressList(o.allow);
    this.#default = { max: o.config.max, windowMs: o.config.windowMs, unlimited: false };
    this.#unlimited = { max: 1, windowMs: o.config.windowMs, unlimited: true };
    this.missBudget = o.missBudget ?? 0;
    this.#missDefault = {
      max: Math.max(1, this.missBudget),
      windowMs: o.config.windowMs,
      unlimited: this.missBudget === 0,
    };
  }

  /**
   * New budgets, allowlist and API keys in place (a reload): every client
   * keeps its bucket with the same share of its new budget left.
   */
  reconfigure(o: Pick<RateLimiterOptions, 'config' | 'allow' | 'apiKeys' | 'missBudget'>): void {
    this.#set(o);
    this.#buckets.rebudget();
    this.#misses.rebudget();
  }

  #sync(o: RateLimiterOptions, tag: string, table: BucketTable): FleetSync | null {
    if (o.redis === null) return null;
    const fleet = new FleetSync({
      guard: o.redis.guard,
      prefix: `${o.redis.keyPrefix}${tag}:`,
      intervalMs: o.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS,
      clock: this.#clock,
    });
    table.onActive = (b) => fleet.watch(b);
    return fleet;
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

  /** Gives back credits taken with `take` for work not done here. */
  give(clientKey: string, cost: number): void {
    this.#buckets.give(clientKey, cost);
  }

  /** Whole credits (requests) a client key holds now. */
  remaining(clientKey: string): number {
    return this.#buckets.remaining(clientKey, this.#clock());
  }

  /** Charges one led upstream request to an IP client's miss budget: 0 when admitted, else ms to wait. */
  takeMiss(clientKey: string): number {
    return this.missBudget === 0 ? 0 : this.#misses.take(clientKey, 1, this.#clock());
  }

  /** Gives back a miss charged with `takeMiss` (another replica did the fetch). */
  giveMiss(clientKey: string): void {
    this.#misses.give(clientKey, 1);
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

  get missBuckets(): number {
    return this.#misses.size;
  }

  /** null without Redis; else whether the last reconciliation round reached Redis. */
  fleetOk(): boolean | null {
    return this.#fleet === null ? null : this.#fleet.ok;
  }

  /** Starts the background reconciliation (no-op without Redis). */
  start(): void {
    this.#fleet?.start();
    this.#missFleet?.start();
  }

  /** One reconciliation round of both tables now (tests; no-op without Redis). */
  async sync(): Promise<void> {
    await Promise.all([this.#fleet?.sync(), this.#missFleet?.sync()]);
  }

  async close(): Promise<void> {
    await this.sync();
    await Promise.all([this.#fleet?.close(), this.#missFleet?.close()]);
  }

  #budgetOf(clientKey: string): Budget {
    const key = this.#keys.byClientKey(clientKey);
    if (key !== undefined) return { max: key.max, windowMs: key.windowMs, unlimited: false };
    return clientKey === ALLOWLISTED || this.#allow.has(clientKey) ? this.#unlimited : this.#default;
  }
}
