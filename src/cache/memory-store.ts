/**
 * The memory tier: an LRU bounded in bytes holding ready-to-send payloads.
 *
 * Each stored entry carries its identity bytes plus gzip (level 6) and brotli
 * (quality 5) variants, compressed once at set time (only for bodies of at
 * least `compressMinBytes` and only when smaller), so the size charged to the
 * LRU is exact and a hit does no JSON and no compression work. Entries with
 * time-relative fields (stamps) are re-rendered lazily, at most once per
 * second per encoding: the variant of the previous second is replaced (its
 * size differs from the charged one by a few bytes at most).
 *
 * Expiry: an entry is dropped at its sieUntil (lru-cache TTL on the injected
 * clock, plus a check on every read, plus a periodic purge of dead entries).
 * `onEvict` fires for entries pushed out by the byte bound only, not for
 * deletes, overwrites or expiry.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { renderBody } from './render.js';
import type { CacheEntry, CacheStore, Encoding } from './types.js';

export interface Payload {
  body: Buffer;
  encoding: Encoding;
}

export interface MemoryStoreOptions {
  maxBytes: number;
  /** An entry was evicted by the byte bound (for metrics). */
  onEvict?: (key: string) => void;
  /** ms epoch clock (injectable for tests); Date.now by default. */
  clock?: () => number;
  /** Smallest body that gets compressed variants (1024). */
  compressMinBytes?: number;
  /** Interval of the purge of expired entries (60 s); 0 disables. */
  purgeIntervalMs?: number;
}

const GZIP_OPTS = { level: 6 };
const brotliOpts = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
});
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Fixed bookkeeping charged per entry besides its buffers (object headers, LRU slots). */
const OVERHEAD_BYTES = 200;
const STAMP_BYTES = 48;

const compressSync = (enc: 'gzip' | 'br', body: Buffer): Buffer =>
  enc === 'gzip' ? gzipSync(body, GZIP_OPTS) : brotliCompressSync(body, brotliOpts(body.length));

const second = (ms: number): number => Math.floor(ms / 1000);

/** One stored entry with its ready-to-send payloads. */
export class MemoryEntry {
  readonly entry: CacheEntry;
  /** Bytes charged to the LRU. */
  readonly size: number;
  readonly #stamped: boolean;
  /** Current payload per encoding; null = no compressed variant (identity is sent). */
  readonly #payloads: Record<Encoding, Payload | null>;
  /** Second (floor(ms/1000)) each payload was rendered for (stamped entries only). */
  readonly #seconds: Record<Encoding, number>;

  private constructor(entry: CacheEntry, renderedAt: number, identity: Buffer, gz: Buffer | null, br: Buffer | null) {
    this.entry = entry;
    this.#stamped = entry.stamps.length > 0;
    const id: Payload = { body: identity, encoding: 'identity' };
    this.#payloads = {
      identity: id,
      gzip: gz === null ? null : { body: gz, encoding: 'gzip' },
      br: br === null ? null : { body: br, encoding: 'br' },
    };
    const s = second(renderedAt);
    this.#seconds = { identity: s, gzip: s, br: s };
    this.size =
      entry.body.length +
      (this.#stamped ? identity.length : 0) +
      (gz?.length ?? 0) +
      (br?.length ?? 0) +
      Buffer.byteLength(entry.key) +
      entry.stamps.length * STAMP_BYTES +
      OVERHEAD_BYTES;
  }

  /** Renders (stamps at `now`) and compresses the variants of an entry. */
  static async build(entry: CacheEntry, now: number, compressMinBytes: number): Promise<MemoryEntry> {
    const identity = renderBody(entry, now);
    if (identity.length < compressMinBytes) return new MemoryEntry(entry, now, identity, null, null);
    const [gz, br] = await Promise.all([gzipAsync(identity, GZIP_OPTS), brotliAsync(identity, brotliOpts(identity.length))]);
    const smaller = (b: Buffer): Buffer | null => (b.length < identity.length ? b : null);
    return new MemoryEntry(entry, now, identity, smaller(gz), smaller(br));
  }

  /**
   * The bytes to send for `encoding` at `nowMs`: the precomputed variant, or
   * identity when the entry has none. Stamp-free entries return the same
   * objects every time; stamped ones are re-rendered on the first call of a new
   * second (per encoding).
   */
  payload(encoding: Encoding, nowMs: number): Payload {
    const current = this.#payloads[encoding];
    if (current === null) return this.#identity(nowMs);
    if (!this.#stamped) return current;
    if (encoding === 'identity') return this.#identity(nowMs);
    const s = second(nowMs);
    if (this.#seconds[encoding] === s) return current;
    const id = this.#identity(nowMs);
    const packed = compressSync(encoding, id.body);
    const next: Payload = packed.length < id.body.length ? { body: packed, encoding } : id;
    this.#payloads[encoding] = next;
    this.#seconds[encoding] = s;
    return next;
  }

  #identity(nowMs: number): Payload {
    const id = this.#payloads.identity as Payload;
    if (!this.#stamped) return id;
    const s = second(nowMs);
    if (this.#seconds.identity === s) return id;
    const next: Payload = { body: renderBody(this.entry, nowMs), encoding: 'identity' };
    this.#payloads.identity = next;
    this.#seconds.identity = s;
    return next;
  }
}

export class MemoryStore implements CacheStore {
  readonly name = 'memory';
  readonly #lru: LRUCache<string, MemoryEntry>;
  readonly #clock: () => number;
  readonly #compressMinBytes: number;
  /** The latest entry being prepared per key: an older set finishing later must not win. */
  readonly #pending = new Map<string, CacheEntry>();
  readonly #purgeTimer: NodeJS.Timeout | null;

  constructor(opts: MemoryStoreOptions) {
    if (!Number.isSafeInteger(opts.maxBytes) || opts.maxBytes < 1) throw new RangeError('maxBytes must be a positive integer');
    const clock = opts.clock ?? Date.now;
    const onEvict = opts.onEvict;
    this.#clock = clock;
    this.#compressMinBytes = opts.compressMinBytes ?? 1024;
    this.#lru = new LRUCache<string, MemoryEntry>({
      maxSize: opts.maxBytes,
      sizeCalculation: (m) => m.size,
      perf: { now: clock },
      ...(onEvict === undefined
        ? {}
        : {
            dispose: (_m: MemoryEntry, key: string, reason: LRUCache.DisposeReason) => {
              if (reason === 'evict') onEvict(key);
            },
          }),
    });
    const every = opts.purgeIntervalMs ?? 60_000;
    this.#purgeTimer = every > 0 ? setInterval(() => this.#lru.purgeStale(), every).unref() : null;
  }

  /** Synchronous fast path: the live entry (marked recently used), or undefined. */
  peek(key: string): MemoryEntry | undefined {
    const m = this.#lru.get(key);
    if (m === undefined) return undefined;
    if (m.entry.sieUntil <= this.#clock()) {
      this.#lru.delete(key);
      return undefined;
    }
    return m;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    return this.peek(key)?.entry;
  }

  /** Stores until entry.sieUntil; once resolved, `peek(entry.key)?.entry === entry` (unless too large or superseded). */
  async set(entry: CacheEntry): Promise<void> {
    const { key } = entry;
    if (entry.sieUntil <= this.#clock()) {
      this.#pending.delete(key);
      this.#lru.delete(key);
      return;
    }
    this.#pending.set(key, entry);
    const m = await MemoryEntry.build(entry, this.#clock(), this.#compressMinBytes);
    if (this.#pending.get(key) !== entry) return;
    this.#pending.delete(key);
    const ttl = entry.sieUntil - this.#clock();
    if (ttl <= 0) {
      this.#lru.delete(key);
      return;
    }
    this.#lru.set(key, m, { ttl: Math.ceil(ttl) });
  }

  async delete(key: string): Promise<void> {
    this.#pending.delete(key);
    this.#lru.delete(key);
  }

  /** Number of entries held (expired ones count until purged or read). */
  get entries(): number {
    return this.#lru.size;
  }

  /** Bytes charged to the LRU. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  clear(): void {
    this.#pending.clear();
    this.#lru.clear();
  }

  async close(): Promise<void> {
    if (this.#purgeTimer !== null) clearInterval(this.#purgeTimer);
  }
}
