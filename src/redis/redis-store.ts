/**
 * The Redis cache tier (`CacheStore`, name 'redis').
 *
 * Key `keyPrefix + 'e3:' + namespace + entry.key` (`e3:` the codec's format), value in that format (codec.ts),
 * expiry `PX = sieUntil - now` so Redis drops an entry when it can no longer be
 * served even as stale-if-error. `get` returns the stored times as this
 * replica judges them (codec.ts: never younger than the writer's age at the
 * write plus the time since, which the key's remaining expiry tells, whatever
 * the writer's clock), so a memory fill from Redis keeps the remaining TTL
 * rather than a fresh one.
 *
 * Degradation: every command goes through a breaker and a deadline of
 * `commandTimeoutMs`. While the breaker is open, or on any error or timeout,
 * `get` is a miss and `set`/`delete` are no-ops; nothing is thrown to the
 * caller and no call waits longer than the command timeout. Failures are
 * counted with `metrics.tierError('redis', op)`. A value that does not decode
 * (corrupt, truncated, foreign, other version, other key) is deleted and
 * reported as a miss.
 *
 * Reads are batched: the GETs asked for in one turn of the event loop go out
 * as one MGET with each key's PTTL in the same pipeline (one socket write and
 * one reply for all of them, which is most of a Redis hit's CPU under load),
 * under one deadline and one breaker permit; a failed batch counts a tier
 * error per key. Redis Cluster clients send one GET and PTTL per key (an MGET
 * must not cross hash slots).
 *
 * With tracing on, each `get` is a CLIENT span of the request that asked (tracing.ts).
 */
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { RedisConfig } from '../config/types.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import { Breaker } from '../common/breaker.js';
import { guarded, type RedisGuard } from './guard.js';
import { Cluster } from 'ioredis';
import { isReady, type RedisClient } from './client.js';
import { decodeEntry, encodeEntry, ENTRY_KEY_PART } from './codec.js';
import { tracing } from '../tracing/tracing.js';
import type { Tracing } from '../tracing/types.js';

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

/** A value and the ms left of its key's expiry (null: no such key; undefined: a tier failure). */
type Read = { raw: Buffer; remainingMs: number } | null | undefined;

interface ReadBatch {
  keys: string[];
  waiters: ((read: Read) => void)[];
}

type Replies = [Error | null, unknown][];

/** A pipeline's replies, rejected when one failed (a timeout counts against the breaker as a lone command does). */
async function allOf(exec: Promise<Replies | null>): Promise<Replies> {
  const replies = await exec;
  if (replies === null) throw new Error('pipeline aborted');
  for (const [err] of replies) if (err !== null) throw err;
  return replies;
}

/** The value and remaining expiry of pipeline replies `[value, pttl]`. */
function readOf(value: unknown, pttl: unknown): Read {
  if (!Buffer.isBuffer(value)) return null;
  const ms = Number(pttl);
  // No expiry known (-1) or gone since (-2): nothing is told beyond the writer's age at the write.
  return { raw: value, remainingMs: ms >= 0 ? ms : Number.POSITIVE_INFINITY };
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
  /** Redis keys asked for in this turn of the event loop, and who waits for each. */
  #batch: ReadBatch | null = null;

  constructor(opts: RedisStoreOptions) {
    this.#client = opts.client;
    this.#cfg = opts.config;
    this.#metrics = opts.metrics ?? noopMetrics;
    this.#clock = opts.clock ?? Date.now;
    this.#breaker =
      opts.breaker ?? new Breaker({ failures: opts.config.breakerFailures, cooldownMs: opts.config.breakerCooldownMs });
    this.#guardOpts = {
      client: opts.client,
      breaker: this.#breaker,
      timeoutMs: opts.config.commandTimeoutMs,
      metrics: this.#metrics,
    };
    this.#entryPrefix = `${opts.config.keyPrefix}${ENTRY_KEY_PART}${opts.namespace ?? ''}`;
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

  /** null: tracing is off. */
  readonly #trace: Tracing | null = tracing();

  get(key: string): Promise<CacheEntry | undefined> {
    const t = this.#trace;
    return t === null ? this.#get(key) : t.redis('GET', () => this.#get(key));
  }

  async #get(key: string): Promise<CacheEntry | undefined> {
    const read = await this.#read(this.redisKey(key));
    if (read === undefined || read === null) return undefined;
    const entry = decodeEntry(read.raw, { now: this.#clock(), remainingMs: read.remainingMs });
    if (entry === undefined || entry.key !== key) {
      await this.delete(key);
      return undefined;
    }
    if (entry.sieUntil <= this.#clock()) return undefined;
    return entry;
  }

  /** The value under a Redis key and its remaining expiry: null when absent, undefined on a tier failure. */
  #read(redisKey: string): Promise<Read> {
    const client = this.#client;
    if (client instanceof Cluster)
      return guarded(this.#guardOpts, 'get', () =>
        allOf(client.pipeline().getBuffer(redisKey).pttl(redisKey).exec()),
      ).then((r) => (r === undefined ? undefined : readOf(r[0]?.[1], r[1]?.[1])));
    return new Promise((resolve) => {
      let batch = this.#batch;
      if (batch === null) {
        const fresh: ReadBatch = { keys: [], waiters: [] };
        this.#batch = batch = fresh;
        setImmediate(() => {
          this.#batch = null;
          void this.#flush(client, fresh.keys, fresh.waiters);
        });
      }
      batch.keys.push(redisKey);
      batch.waiters.push(resolve);
    });
  }

  async #flush(
    client: Exclude<RedisClient, Cluster>,
    keys: string[],
    waiters: ((read: Read) => void)[],
  ): Promise<void> {
    if (keys.length === 1) {
      const key = keys[0] as string;
      const r = await guarded(this.#guardOpts, 'get', () => allOf(client.pipeline().getBuffer(key).pttl(key).exec()));
      waiters[0]?.(r === undefined ? undefined : readOf(r[0]?.[1], r[1]?.[1]));
      return;
    }
    const pipe = client.pipeline().mgetBuffer(...keys);
    for (const k of keys) pipe.pttl(k);
    const r = await guarded(this.#guardOpts, 'get', () => allOf(pipe.exec()));
    const values = r?.[0]?.[1];
    if (!Array.isArray(values)) {
      for (let i = 1; i < keys.length; i++) this.#metrics.tierError('redis', 'get');
      for (const w of waiters) w(undefined);
      return;
    }
    waiters.forEach((w, i) => w(readOf(values[i], r?.[i + 1]?.[1])));
  }

  async set(entry: CacheEntry): Promise<void> {
    const now = this.#clock();
    const ttl = Math.ceil(entry.sieUntil - now);
    if (!(ttl > 0)) return;
    const permit = this.#breaker.tryAcquire();
    if (permit === null) return;
    let value: Buffer;
    try {
      value = await encodeEntry(entry, this.#cfg.compressAboveBytes, now);
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
