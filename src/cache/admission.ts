/**
 * Admission of second-tier (Redis) hits into the memory tier: TinyLFU.
 *
 * A key read from Redis is promoted into memory only when
 *  - it was read from Redis before, within the doorkeeper's window (the last
 *    `window` to 2 × `window` keys read from Redis for the first time), and
 *  - the memory tier has room for it, or the key was looked up more often
 *    before this read than the entry promoting it would evict (`victim`); a
 *    tie keeps that entry (in a cycle through more keys than memory holds,
 *    the victim is the entry whose lookup of this round is still to come).
 * Lookups are counted in a frequency sketch: memory hits (`record`) and Redis
 * reads (`admit`). So a scan through Redis (each key once) admits nothing, a
 * cycle through more keys than memory holds (every key as often as every
 * other) does not churn memory, and a key looked up more often than what
 * memory holds takes its place.
 *
 * Bounded memory: the doorkeeper is two generations of 30-bit key hashes, at
 * most `window` each (when the current one fills it becomes the previous one
 * and the previous one is dropped). The sketch is a count-min sketch of 4 rows
 * of `width` counters capped at 15, `width` the power of two at or above
 * `window`; after 10 × `width` lookups every counter is halved, so counts
 * describe recent lookups. Collisions only overestimate a count (a key is
 * promoted a read early, or an entry kept that could have been replaced).
 */
export interface AdmissionOptions {
  /** Keys the sketch is sized for (8192). */
  window?: number;
  /** Each verdict (for metrics); null: none. */
  onVerdict?: ((promoted: boolean) => void) | null;
}

const ROWS = 4;
const MAX_COUNT = 15;
const NO_VICTIM = (): null => null;
/** Lookups between two halvings, per counter of a row. */
const SAMPLE_FACTOR = 10;

/** FNV-1a over the key's UTF-16 code units, then murmur3's finalizer (FNV's low bits alone mix poorly). */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix(h);
}

function mix(h: number): number {
  let x = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The step between a key's counters in successive rows (odd, a second mix of the hash). */
function rehash(h: number): number {
  return (mix(h + 0x9e3779b9) | 1) >>> 0;
}

export class MemoryAdmission {
  readonly #onVerdict: ((promoted: boolean) => void) | null;
  readonly #counts: Uint8Array;
  readonly #mask: number;
  readonly #sampleSize: number;
  #samples = 0;
  readonly #window: number;
  #current = new Set<number>();
  #previous = new Set<number>();

  constructor(opts: AdmissionOptions = {}) {
    const window = opts.window ?? 8192;
    if (!Number.isSafeInteger(window) || window < 1) throw new RangeError('window must be a positive integer');
    let width = 1;
    while (width < window) width *= 2;
    this.#counts = new Uint8Array(width * ROWS);
    this.#mask = width - 1;
    this.#sampleSize = SAMPLE_FACTOR * width;
    this.#window = window;
    this.#onVerdict = opts.onVerdict ?? null;
  }

  /** A lookup of `key` answered from memory. */
  record(key: string): void {
    this.#increment(hash(key));
  }

  /**
   * A read of `key` from Redis: whether it now goes into memory. `victim`: the
   * key promoting it would evict (null: memory has room), asked only for a key
   * read before.
   */
  admit(key: string, victim: () => string | null = NO_VICTIM): boolean {
    const h = hash(key);
    // Lookups before this one: in a cycle the LRU victim is always one lookup behind.
    const before = this.#estimate(h);
    this.#increment(h);
    let promoted = this.#seen(h);
    if (promoted) {
      const v = victim();
      promoted = v === null || before > this.#estimate(hash(v));
    }
    if (this.#onVerdict !== null) this.#onVerdict(promoted);
    return promoted;
  }

  /** Whether the key was read from Redis before, within the window (and now remembered if not). */
  #seen(h: number): boolean {
    const k = h & 0x3fffffff;
    if (this.#current.has(k) || this.#previous.has(k)) return true;
    if (this.#current.size >= this.#window) {
      this.#previous = this.#current;
      this.#current = new Set();
    }
    this.#current.add(k);
    return false;
  }

  /** The sketch's count for `key` (tests). */
  frequency(key: string): number {
    return this.#estimate(hash(key));
  }

  #estimate(h: number): number {
    const step = rehash(h);
    const width = this.#mask + 1;
    let min = MAX_COUNT;
    for (let row = 0, idx = h; row < ROWS; row++, idx = (idx + step) >>> 0) {
      const c = this.#counts[row * width + (idx & this.#mask)] as number;
      if (c < min) min = c;
    }
    return min;
  }

  #increment(h: number): void {
    const step = rehash(h);
    const width = this.#mask + 1;
    // Conservative update: only the counters at the minimum grow (fewer overestimates).
    const min = this.#estimate(h);
    if (min < MAX_COUNT) {
      for (let row = 0, idx = h; row < ROWS; row++, idx = (idx + step) >>> 0) {
        const at = row * width + (idx & this.#mask);
        if (this.#counts[at] === min) this.#counts[at] = min + 1;
      }
    }
    if (++this.#samples >= this.#sampleSize) this.#age();
  }

  /** Halves every count: the sketch forgets old lookups. */
  #age(): void {
    const counts = this.#counts;
    for (let i = 0; i < counts.length; i++) counts[i] = (counts[i] as number) >>> 1;
    this.#samples = 0;
  }
}
