/**
 * Admission of second-tier (Redis) hits into the memory tier: a doorkeeper.
 *
 * A key read from Redis is promoted into memory only when it was read from
 * Redis before, within the doorkeeper's window: the last `window` to
 * 2 × `window` distinct keys read from Redis and not yet held in memory. A
 * first read is answered from the Redis value alone and leaves the memory
 * tier untouched, so a scan through Redis (each key read once) cannot evict
 * the hot set; what is read again is promoted on that second read.
 *
 * Bounded memory: two generations of 30-bit key hashes, each at most `window`
 * long; when the current one fills it becomes the previous one and the
 * previous one is dropped. A hash collision only promotes a key one read
 * early.
 */

export interface DoorkeeperOptions {
  /** Keys per generation (8192). */
  window?: number;
  /** Each verdict (for metrics); null: none. */
  onVerdict?: ((promoted: boolean) => void) | null;
}

/** FNV-1a over the key's UTF-16 code units, cut to 30 bits (small integers: no heap number per hash). */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x3fffffff;
}

export class Doorkeeper {
  readonly #window: number;
  readonly #onVerdict: ((promoted: boolean) => void) | null;
  #current = new Set<number>();
  #previous = new Set<number>();

  constructor(opts: DoorkeeperOptions = {}) {
    const window = opts.window ?? 8192;
    if (!Number.isSafeInteger(window) || window < 1) throw new RangeError('window must be a positive integer');
    this.#window = window;
    this.#onVerdict = opts.onVerdict ?? null;
  }

  /** Whether the key read from Redis now goes into memory: true when it was read before, within the window. */
  admit(key: string): boolean {
    const h = hash(key);
    const promoted = this.#current.has(h) || this.#previous.has(h);
    if (!promoted) {
      if (this.#current.size >= this.#window) {
        this.#previous = this.#current;
        this.#current = new Set();
      }
      this.#current.add(h);
    }
    if (this.#onVerdict !== null) this.#onVerdict(promoted);
    return promoted;
  }
}
