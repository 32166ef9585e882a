/**
 * One entry of the memory tier with its ready-to-send payloads: the identity
 * bytes and the gzip and brotli variants (made at set time, or, for an entry
 * promoted from Redis, when a hit first asks for one), and the re-rendering
 * of stamped entries, at most once per second per encoding.
 */
import { chargedSize } from './charge.js';
import { compress, compressSync } from './compression.js';
import { ownedBytes } from './owned.js';
import { renderBody } from './render.js';
import type { CacheEntry, Encoding } from './types.js';

export interface Payload {
  body: Buffer;
  encoding: Encoding;
}

const second = (ms: number): number => Math.floor(ms / 1000);

/** A variant: its bytes, none (null: identity is sent), or not made yet (undefined: made when first asked for). */
type Variant = Buffer | null | undefined;
/** Makes a variant not made yet (the memory tier, for the entries it holds). */
export type Maker = (m: MemoryEntry, encoding: 'gzip' | 'br') => void;

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
    const [gz, br] = await Promise.all([compress('gzip', body), compress('br', body)]);
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
