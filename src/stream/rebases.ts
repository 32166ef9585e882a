/** The recent rebases of one stream, so a client resuming from a height that was dropped is told. */

export interface RebaseRecord {
  height: number;
  from: number;
}

/** Rebases remembered (they are rare: every upstream followed down). */
const MAX_REBASES = 16;

export class RebaseLog {
  readonly #rebases: RebaseRecord[] = [];

  push(height: number, from: number): void {
    this.#rebases.push({ height, from });
    if (this.#rebases.length > MAX_REBASES) this.#rebases.shift();
  }

  /** The rebases remembered, oldest first. */
  all(): readonly RebaseRecord[] {
    return this.#rebases;
  }

  /**
   * The lowest rebase a client that saw `height` may not know of: one to below
   * `height` from at or above it (the client may hold dropped events). null when none.
   */
  rebaseFor(height: number): RebaseRecord | null {
    let found: RebaseRecord | null = null;
    for (const r of this.#rebases)
      if (r.height < height && height <= r.from && (found === null || r.height < found.height)) found = r;
    return found;
  }
}
