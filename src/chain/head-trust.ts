/**
 * Bounded trust in reported heads. A report is believed at once when it is
 * plausible: no further ahead of the trusted head than `marginBlocks` plus
 * twice what the observed block rate allows for the time since the head last
 * moved. Otherwise it is held as a claim, and believed when a second report
 * (another upstream, or the same upstream's next probe) within
 * `confirmWindowMs` confirms it: the believed height is the lower of the two.
 * With no trusted head yet, the first report is believed (the follow-down rule
 * in the prober corrects a wrong start).
 */
export interface HeadTrustOptions {
  marginBlocks: number;
  confirmWindowMs: number;
  clock: () => number;
}

interface Claim {
  height: number;
  at: number;
  source: string;
}

/** Pure: the highest height believable without confirmation. */
export function plausibleLimit(head: number, marginBlocks: number, blocksPerMs: number, sinceMs: number): number {
  return head + marginBlocks + Math.ceil(2 * blocksPerMs * Math.max(0, sinceMs));
}

export class HeadTrust {
  readonly #o: HeadTrustOptions;
  readonly #claims: Claim[] = [];
  /** First and last accepted (time, height): the observed block rate. */
  #first: { at: number; height: number } | null = null;
  #last: { at: number; height: number } | null = null;

  constructor(o: Partial<HeadTrustOptions>) {
    this.#o = { marginBlocks: o.marginBlocks ?? 10, confirmWindowMs: o.confirmWindowMs ?? 30_000, clock: o.clock ?? Date.now };
  }

  #rate(): number {
    if (this.#first === null || this.#last === null) return 0;
    const dt = this.#last.at - this.#first.at;
    return dt > 0 ? Math.max(0, this.#last.height - this.#first.height) / dt : 0;
  }

  plausible(head: number | null, height: number): boolean {
    if (head === null || height <= head) return true;
    const since = this.#last === null ? 0 : this.#o.clock() - this.#last.at;
    return height <= plausibleLimit(head, this.#o.marginBlocks, this.#rate(), since);
  }

  /** The height to believe after this report, or null (nothing new believed). */
  report(head: number | null, height: number, source: string): number | null {
    if (this.plausible(head, height)) return height;
    const now = this.#o.clock();
    let confirmed: number | null = null;
    for (let i = this.#claims.length - 1; i >= 0; i--) {
      const c = this.#claims[i]!;
      if (now - c.at > this.#o.confirmWindowMs) {
        this.#claims.splice(i, 1);
        continue;
      }
      const h = Math.min(c.height, height);
      if (confirmed === null || h > confirmed) confirmed = h;
    }
    // One claim per source: the latest (a probe confirms that source's earlier claim).
    const own = this.#claims.findIndex((c) => c.source === source);
    if (own >= 0) this.#claims.splice(own, 1);
    this.#claims.push({ height, at: now, source });
    if (this.#claims.length > 64) this.#claims.shift();
    return confirmed !== null && (head === null || confirmed > head) ? confirmed : null;
  }

  accepted(height: number): void {
    const now = this.#o.clock();
    if (this.#first === null) this.#first = { at: now, height };
    this.#last = { at: now, height };
    for (let i = this.#claims.length - 1; i >= 0; i--) if (this.#claims[i]!.height <= height) this.#claims.splice(i, 1);
  }

  reset(height: number): void {
    this.#claims.length = 0;
    const now = this.#o.clock();
    this.#first = { at: now, height };
    this.#last = { at: now, height };
  }
}
