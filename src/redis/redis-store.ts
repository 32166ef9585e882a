/**
 * The Redis cache tier (`CacheStore`, name 'redis').
 *
 * Key `keyPrefix + 'e:' + namespace + entry.key`, value in the codec format (codec.ts),
 * expiry `PX = sieUntil - now` so Redis drops an entry when it can no longer be
 * served even as stale-if-error. `get` returns the stored absolute times, so a
 * memory fill from Redis keeps the remaining TTL rather than a fresh one.
 *
 * Degradation: every command goes through a breaker and a deadline of
 * `commandTimeoutMs`. While the breaker is open, or on any error or timeout,
 * `get` is a miss and `set`/`delete` are no-ops; nothing is thrown to the
 * caller and no call waits longer than the command timeout. Failures are
 * counted with `metrics.tierError('redis', op)`. A value that does not decode
 * (corrupt, truncated, foreign, other version, other key) is deleted and
 * reported as a miss.
 */
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { RedisConfig } from '../config/types.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import { Breaker } from '../common/breaker.js';
import { guarded, type RedisGuard } from './guard.js';
import { isReady, type RedisClient } from './client.js';
import { decodeEntry, encodeEntry } from './codec.js';

export interface RedisStoreOptions {
  client: RedisClient;
  config: RedisConfig;
  metrics?: Metrics;
  clock?: () => number;
  /** Shared breaker (e.g. with the lease); one is made from the config otherwise. */
  breaker?: Breaker;
  /**
   * Part of every entry key after `e:` (fleetNamespace(publicBaseUrl)): bodies carry
   * links built from PUBLIC_BASE_URL, so replicas with different base URLs never share entries.
   */
  namespace?: string;
}

export class RedisStore implements CacheStore {
  readonly name = 'redis';
  readonly #client: RedisClient;
  readonly #cfg: RedisConfig;
  readonly #metrics: Metrics;
  readonly #clock: () => number;
  readonly #breaker: Breaker;
  readonly #guardOpts: RedisGuard;
  readonly #entryPrefix: string;

  constructor(opts: RedisStoreOptions) {
    this.#client = opts.client;
    this.#cfg = opts.config;
    this.#metrics = opts.metrics ?? noopMetrics;
    this.#clock = opts.clock ?? Date.now;
    this.#breaker = opts.breaker ?? new Breaker({ failures: opts.config.breakerFailures, cooldownMs: opts.config.breakerCooldownMs });
    this.#guardOpts = { client: opts.client, breaker: this.#breaker, timeoutMs: opts.config.commandTimeoutMs, metrics: this.#metrics };
    this.#entryPrefix = `${opts.config.keyPrefix}e:${opts.namespace ?? ''}`;
  }

  /** Redis key of a cache key. */
  redisKey(key: string): string {
    return this.#entryPrefix + key;
  }

  /** Connected and the breaker closed. */
  healthy(): boolean {
    return isReady(this.#client) && this.#breaker.state() === 'closed';
  }

  get breaker(): Breaker {
    return this.#breaker;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await guarded(this.#guardOpts, 'get', () => this.#client.getBuffer(this.redisKey(key)));
    if (raw === undefined || raw === null) return undefined;
    const entry = await decodeEntry(raw);
    if (entry === undefined || entry.key !== key) {
      await this.delete(key);
      return undefined;
    }
    if (entry.sieUntil <= this.#clock()) return undefined;
    return entry;
  }

  async set(entry: CacheEntry): Promise<void> {
    const ttl = Math.ceil(entry.sieUntil - this.#clock());
    if (!(ttl > 0)) return;
    const permit = this.#breaker.tryAcquire();
    if (permit === null) return;
    let value: Buffer;
    try {
      value = await encodeEntry(entry, this.#cfg.compressAboveBytes);
    } catch {
      this.#breaker.release(permit);
      this.#metrics.tierError('redis', 'set');
      return;
    }
    await guarded(this.#guardOpts, 'set', () => this.#client.set(this.redisKey(entry.key), value, 'PX', ttl), permit);
  }

  async delete(key: string): Promise<void> {
    await guarded(this.#guardOpts, 'delete', () => this.#client.del(this.redisKey(key)));
  }

}
