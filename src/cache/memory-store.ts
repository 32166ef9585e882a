/**
 * The memory tier: an LRU bounded in bytes holding ready-to-send payloads.
 *
 * Each stored entry carries its identity bytes plus gzip (level 6) and brotli
 * (quality 5) variants, compressed once at set time (only for bodies of at
 * least `compressMinBytes` and only when smaller), so a hit does no JSON and no
 * compression work. The size charged to the LRU is what the entry costs in
 * memory (`chargedSize`): its buffers, each with the fixed cost of a Buffer,
 * the key, and the objects around them (entry, wrapper, payloads, LRU slots),
 * measured on Node 20, the JS objects with the collector's headroom
 * (bench/scenarios/m-flood.ts checks RSS against the bound). Entries with
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
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { carryGzip } from './carried-gzip.js';
import { ownedBytes } from './owned.js';
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

/** Heap cost of one entry besides its buffers and key: CacheEntry, etag string, MemoryEntry, payloads, LRU slots. */
export const ENTRY_OVERHEAD_BYTES = 560;
/** Fixed cost of one Buffer of its own (typed array, ArrayBuffer, backing-store record). */
export const BUFFER_OVERHEAD_BYTES = 320;
/**
 * V8 lets the old generation grow to about twice its live size between major
 * collections, and a cache under a flood is mostly old generation: each byte
 * of JS objects an entry holds is charged this many times (buffer contents,
 * outside the JS heap, once).
 */
export const HEAP_HEADROOM = 2;
const STAMP_BYTES = 64;
/** Entries examined for expiry at the LRU end per insert. */
const SWEEP_PER_INSERT = 4;

/** Bytes charged for an entry: what it holds in memory, not only its payload. */
function chargedSize(entry: CacheEntry, buffers: readonly (Buffer | null)[], stamped: boolean): number {
  let bytes = 0;
  let objects = 0;
  for (const b of buffers) {
    if (b === null) continue;
    bytes += b.length;
    objects += BUFFER_OVERHEAD_BYTES;
  }
  // A stamped entry also holds one re-rendered copy of each (same size ± a few digits).
  if (stamped) {
    bytes *= 2;
    objects *= 2;
  }
  // Keys are built by concatenation: the flat string plus the parts it was made of.
  objects += 2 * entry.key.length + entry.stamps.length * STAMP_BYTES + ENTRY_OVERHEAD_BYTES;
  return bytes + HEAP_HEADROOM * objects;
}

const compressSync = (enc: 'gzip' | 'br', body: Buffer): Buffer =>
  enc === 'gzip' ? gzipSync(body, GZIP_OPTS) : brotliCompressSync(body, brotliOpts(body.length));

const second = (ms: number): number => Math.floor(ms / 1000);

/** A variant: its bytes, none (null: identity is sent), or not made yet (undefined: made when first asked for). */
type Variant = Buffer | null | undefined;
/** Makes a variant not made yet (the memory tier, for the entries it holds). */
type Maker = (m: MemoryEntry, encoding: 'gzip' | 'br') => void;

/** One stored entry with its ready-to-send payloads. */
export class MemoryEntry {
  readonly entry: CacheEntry;
  /** Bytes charged to the LRU. */
  readonly size: number;
  readonly #stamped: boolean;
  /** The stored bytes and their variants (null = no variant: identity is sent; undefined = not made yet). */
  readonly #raw: Record<Encoding, Payload | null | undefined>;
  readonly #maker: Maker | null;
  /** Variants asked of the maker (bit 1 gzip, bit 2 br). */
  #asked = 0;
  /** Stamped entries: the payload rendered for second `#seconds[enc]`, per encoding. */
  readonly #rendered: Record<Encoding, Payload | null> = { identity: null, gzip: null, br: null };
  readonly #seconds: Record<Encoding, number> = { identity: Number.NaN, gzip: Number.NaN, br: Number.NaN };

  private constructor(entry: CacheEntry, gz: Variant, br: Variant, maker: Maker | null = null) {
    this.entry = entry;
    this.#stamped = entry.stamps.length > 0;
    this.#raw = {
      identity: { body: entry.body, encoding: 'identity' },
      gzip: gz == null ? gz : { body: gz, encoding: 'gzip' },
      br: br == null ? br : { body: br, encoding: 'br' },
    };
    this.#maker = maker;
    this.size = chargedSize(entry, [entry.body, gz ?? null, br ?? null], this.#stamped);
  }

  /** The entry without compressed variants (servable at once; identity only). */
  static plain(entry: CacheEntry): MemoryEntry {
    return new MemoryEntry(entry, null, null);
  }

  /**
   * A Redis hit answered without entering the memory tier: its gzip bytes from
   * Redis when it has them, nothing made. Stamped entries send identity (their
   * re-stamped bytes would need compressing on every hit).
   */
  static passing(entry: CacheEntry, gz: Buffer | null): MemoryEntry {
    return new MemoryEntry(entry, entry.stamps.length > 0 ? null : gz, null);
  }

  /** The same payloads under `entry` (whose body is this one's). */
  with(entry: CacheEntry): MemoryEntry {
    return new MemoryEntry(entry, this.#variant('gzip'), this.#variant('br'), this.#maker);
  }

  /** This entry with the `encoding` variant made (null: none worth sending). */
  withVariant(encoding: 'gzip' | 'br', bytes: Buffer | null): MemoryEntry {
    const gz = encoding === 'gzip' ? bytes : this.#variant('gzip');
    const br = encoding === 'br' ? bytes : this.#variant('br');
    return new MemoryEntry(this.entry, gz, br, this.#maker);
  }

  /** Whether the `encoding` variant is still to be made (asked or not). */
  unmade(encoding: 'gzip' | 'br'): boolean {
    return this.#raw[encoding] === undefined;
  }

  #variant(encoding: 'gzip' | 'br'): Variant {
    const p = this.#raw[encoding];
    return p == null ? p : p.body;
  }

  /**
   * An entry promoted from Redis: `gz` its gzip bytes from there (null: none); the rest made by `maker` when asked for.
   */
  static lazy(entry: CacheEntry, gz: Buffer | null, compressMinBytes: number, maker: Maker): MemoryEntry {
    if (entry.body.length < compressMinBytes) return new MemoryEntry(entry, null, null);
    return new MemoryEntry(entry, gz ?? undefined, undefined, maker);
  }

  /** Compresses the variants of an entry (bodies of at least `compressMinBytes`, kept only when smaller). */

  static async build(entry: CacheEntry, compressMinBytes: number): Promise<MemoryEntry> {
    const body = entry.body;
    if (body.length < compressMinBytes) return new MemoryEntry(entry, null, null);
    const [gz, br] = await Promise.all([gzipAsync(body, GZIP_OPTS), brotliAsync(body, brotliOpts(body.length))]);
    const smaller = (b: Buffer): Buffer | null => (b.length < body.length ? ownedBytes(b) : null);
    return new MemoryEntry(entry, smaller(gz), smaller(br));
  }

  /**
   * The bytes to send for `encoding` at `nowMs` (identity when the entry has no
   * such variant). Stamp-free entries return the same precomputed objects every
   * time. For stamped entries the stored bytes are the upstream's answer at
   * `createdAt` and are sent as they are at that instant (a MISS is
   * byte-identical to the upstream); at any other instant the stamps are
   * re-rendered, at most once per second per encoding.
   */
  payload(encoding: Encoding, nowMs: number): Payload {
    if (!this.#stamped || nowMs === this.entry.createdAt) return this.raw(encoding);
    const raw = this.#raw[encoding];
    if (raw === undefined) this.#ask(encoding as 'gzip' | 'br');
    const enc: Encoding = raw == null ? 'identity' : encoding;
    const s = second(nowMs);
    const cached = this.#rendered[enc];
    if (cached !== null && this.#seconds[enc] === s) return cached;
    const next = enc === 'identity' ? this.#renderIdentity(nowMs, s) : this.#renderCompressed(enc, nowMs, s);
    this.#rendered[enc] = next;
    this.#seconds[enc] = s;
    return next;
  }

  /**
   * The stored bytes for `encoding` (identity when no such variant), never
   * re-stamped: what a MISS sends, so the client gets the upstream's answer as
   * it was, while hits get `payload()`.
   */
  raw(encoding: Encoding): Payload {
    const p = this.#raw[encoding];
    if (p != null) return p;
    if (p === undefined) this.#ask(encoding as 'gzip' | 'br');
    return this.#raw.identity as Payload;
  }

  /** Asks the maker for a variant not made yet, once. */
  #ask(encoding: 'gzip' | 'br'): void {
    const bit = encoding === 'gzip' ? 1 : 2;
    if (this.#maker === null || (this.#asked & bit) !== 0) return;
    this.#asked |= bit;
    this.#maker(this, encoding);
  }

  #renderIdentity(nowMs: number, s: number): Payload {
    const cached = this.#rendered.identity;
    if (cached !== null && this.#seconds.identity === s) return cached;
    const id: Payload = { body: renderBody(this.entry, nowMs), encoding: 'identity' };
    this.#rendered.identity = id;
    this.#seconds.identity = s;
    return id;
  }

  #renderCompressed(enc: 'gzip' | 'br', nowMs: number, s: number): Payload {
    const id = this.#renderIdentity(nowMs, s);
    const packed = compressSync(enc, id.body);
    return packed.length < id.body.length ? { body: packed, encoding: enc } : id;
  }
}

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
  readonly #make = (m: MemoryEntry, encoding: 'gzip' | 'br'): void => {
    this.#compressions++;
    const body = m.entry.body;
    void (encoding === 'gzip' ? gzipAsync(body, GZIP_OPTS) : brotliAsync(body, brotliOpts(body.length))).then(
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
