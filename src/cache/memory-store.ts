/**
 * The memory tier: an LRU bounded in bytes holding ready-to-send payloads.
 *
 * Each stored entry carries its identity bytes plus gzip (level 6) and brotli
 * (quality 5) variants, compressed once at set time (only for bodies of at
 * least `compressMinBytes` and only when smaller), so a hit does no JSON and no
 * compression work (the entries: memory-entry.ts). `put` serves identity at
 * once and makes the variants in the background (zlib's thread pool); a MISS
 * waits for them (`made`) before it is written. The size charged to the
 * LRU is what the entry costs in memory (charge.ts). Entries with
 * time-relative fields (stamps) send their stored bytes at `createdAt` only
 * and are otherwise re-rendered lazily, at most once per second per encoding;
 * the rendering of the previous second is replaced, and one rendered copy is
 * charged up front (same size as the stored one, ± a few digits).
 *
 * Entries promoted from the Redis tier (`promote`) are the exception: they
 * arrive with the gzip bytes Redis stored (if any) and nothing else, and a
 * missing variant is made lazily, in the background, on the first hit that
 * asks for that encoding (that hit is sent identity); the entry is then
 * charged again with the variant. Bytes no client asked for are never
 * compressed on that path.
 *
 * Expiry: an entry is dropped at its sieUntil as soon as it is met: on every
 * read, and at the least-recently-used end on every insert (a few entries per
 * insert, the ones eviction would meet next); a periodic purge catches the rest.
 * `onEvict` fires for entries pushed out by the byte bound only, not for
 * deletes, overwrites or expiry.
 */
import { LRUCache } from 'lru-cache';
import { carryGzip } from './carried-gzip.js';
import { chargedSize } from './charge.js';
import { compress } from './compression.js';
import { MemoryEntry, type Maker } from './memory-entry.js';
import { ownedBytes } from './owned.js';
import type { CacheEntry, CacheStore } from './types.js';

// The tier's entries and charges, for the modules that name them from here.
export { BUFFER_OVERHEAD_BYTES, ENTRY_OVERHEAD_BYTES, HEAP_HEADROOM } from './charge.js';
export { MemoryEntry, type Payload } from './memory-entry.js';

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

/** Entries examined for expiry at the LRU end per insert. */
const SWEEP_PER_INSERT = 4;

export class MemoryStore implements CacheStore {
  readonly name = 'memory';
  readonly #lru: LRUCache<string, MemoryEntry>;
  readonly #clock: () => number;
  readonly #compressMinBytes: number;
  /** The latest entry being prepared per key: an older set finishing later must not win. */
  readonly #pending = new Map<string, CacheEntry>();
  /** Variant compression under way per key (what `set` waits for). */
  readonly #building = new Map<string, Promise<void>>();
  readonly #purgeTimer: NodeJS.Timeout | null;
  #compressions = 0;
  /** Makes a variant of a promoted entry asked for on a hit, and charges the entry again with it. */
  readonly #make: Maker = (m, encoding) => {
    this.#compressions++;
    const body = m.entry.body;
    void compress(encoding, body).then(
      (packed) => this.#made(m.entry.key, body, encoding, packed.length < body.length ? ownedBytes(packed) : null),
      () => this.#made(m.entry.key, body, encoding, null),
    );
  };

  constructor(opts: MemoryStoreOptions) {
    if (!Number.isSafeInteger(opts.maxBytes) || opts.maxBytes < 1)
      throw new RangeError('maxBytes must be a positive integer');
    const clock = opts.clock ?? Date.now;
    const onEvict = opts.onEvict;
    this.#clock = clock;
    this.#compressMinBytes = opts.compressMinBytes ?? 1024;
    this.#lru = new LRUCache<string, MemoryEntry>({
      maxSize: opts.maxBytes,
      sizeCalculation: (m) => m.size,
      perf: { now: clock },
      // Expired entries stay visible to this store (its reads check sieUntil themselves),
      // so the sweep at the LRU end can see and drop them.
      allowStale: true,
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

  /**
   * Stores until entry.sieUntil; once resolved, `peek(entry.key)?.entry
   * === entry` with its variants (unless too large or superseded).
   */
  async set(entry: CacheEntry): Promise<void> {
    if (this.put(entry) === undefined) return;
    await this.#building.get(entry.key);
  }

  /**
   * Synchronous store for the response path: the entry is servable at once
   * (identity bytes), and its compressed variants replace it when ready, in
   * the background. Returns what `peek` now returns for the key.
   */
  put(entry: CacheEntry): MemoryEntry | undefined {
    const { key } = entry;
    this.#pending.delete(key);
    if (!this.#insert(entry, MemoryEntry.plain(entry))) return undefined;
    if (entry.body.length >= this.#compressMinBytes) {
      this.#pending.set(key, entry);
      this.#compressions += 2;
      const building = MemoryEntry.build(entry, this.#compressMinBytes).then((m) => {
        if (this.#pending.get(key) !== entry) return;
        this.#pending.delete(key);
        if (this.#lru.peek(key)?.entry === entry) this.#insert(entry, m);
      });
      this.#building.set(key, building);
      void building.finally(() => {
        if (this.#building.get(key) === building) this.#building.delete(key);
      });
    }
    return this.#lru.peek(key);
  }

  /**
   * Resolves once the compressed variants `put` began for `key` are in place
   * (at once when none are being made): a MISS to a client that takes them waits, so it and every
   * hit after it go out compressed, while hits never compress.
   */
  made(key: string): Promise<void> {
    const building = this.#building.get(key);
    return building === undefined ? Promise.resolve() : building.catch(() => undefined);
  }

  /**
   * Stores an entry read from the Redis tier and admitted (cache/admission.ts),
   * with no compression: `gz` its gzip bytes from Redis (null: none); missing
   * variants are made when a hit first asks for them. Returns what `peek` now
   * returns for the key.
   */
  promote(entry: CacheEntry, gz: Buffer | null): MemoryEntry | undefined {
    this.#pending.delete(entry.key);
    const own = gz === null || entry.body.length < this.#compressMinBytes ? null : ownedBytes(gz);
    // The bytes kept, in place of a view that would pin the whole Redis value.
    if (own !== null) carryGzip(entry.body, own);
    if (!this.#insert(entry, MemoryEntry.lazy(entry, own, this.#compressMinBytes, this.#make))) return undefined;
    return this.#lru.peek(entry.key);
  }

  /**
   * The key promoting `entry` (with `gz`, as `promote` would keep it) would
   * evict first (the least recently used), or null when it fits in the byte
   * bound (for admission, cache/admission.ts).
   */
  victim(entry: CacheEntry, gz: Buffer | null): string | null {
    const lru = this.#lru;
    const kept = gz === null || entry.body.length < this.#compressMinBytes ? null : gz;
    if (lru.calculatedSize + chargedSize(entry, [entry.body, kept], entry.stamps.length > 0) <= lru.maxSize)
      return null;
    for (const key of lru.rkeys()) if (key !== entry.key) return key;
    return null;
  }

  /** A variant made for a promoted entry: put in place if that entry (its body) is still held and lacks it. */
  #made(key: string, body: Buffer, encoding: 'gzip' | 'br', bytes: Buffer | null): void {
    const cur = this.#lru.peek(key);
    if (cur === undefined || cur.entry.body !== body || !cur.unmade(encoding)) return;
    const ttl = cur.entry.sieUntil - this.#clock();
    if (ttl > 0) this.#lru.set(key, cur.withVariant(encoding, bytes), { ttl: Math.ceil(ttl) });
  }

  #insert(entry: CacheEntry, m: MemoryEntry): boolean {
    const ttl = entry.sieUntil - this.#clock();
    if (ttl <= 0) {
      this.#lru.delete(entry.key);
      return false;
    }
    this.#lru.set(entry.key, m, { ttl: Math.ceil(ttl) });
    this.#sweep();
    return true;
  }

  /** Drops expired entries at the least-recently-used end, where eviction would meet them next. */
  #sweep(): void {
    const now = this.#clock();
    const dead: string[] = [];
    let seen = 0;
    for (const key of this.#lru.rkeys()) {
      if (seen++ >= SWEEP_PER_INSERT) break;
      const m = this.#lru.peek(key, { allowStale: true });
      if (m !== undefined && m.entry.sieUntil <= now) dead.push(key);
    }
    for (const key of dead) this.#lru.delete(key);
  }

  async delete(key: string): Promise<void> {
    this.#pending.delete(key);
    this.#lru.delete(key);
  }

  /**
   * Every live entry (a copy: the caller may delete or replace while
   * walking it). For an operator's purge, never the request path.
   */
  held(): CacheEntry[] {
    const now = this.#clock();
    const out: CacheEntry[] = [];
    for (const m of this.#lru.values()) if (m.entry.sieUntil > now) out.push(m.entry);
    return out;
  }

  /**
   * Puts `entry` in place of the one held under its key, keeping the compressed
   * variants (same body bytes: only its times differ). False when that entry is
   * no longer held, or has other bytes.
   */
  replace(entry: CacheEntry): boolean {
    const m = this.#lru.peek(entry.key);
    if (m === undefined || m.entry.body !== entry.body) return false;
    const ttl = entry.sieUntil - this.#clock();
    if (ttl <= 0) return false;
    this.#lru.set(entry.key, m.with(entry), { ttl: Math.ceil(ttl) });
    return true;
  }

  /** Number of entries held (expired ones count until purged or read). */
  get entries(): number {
    return this.#lru.size;
  }

  /** Compressions this tier has started (variants made at set time, and lazily for promoted entries). */
  get compressions(): number {
    return this.#compressions;
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
