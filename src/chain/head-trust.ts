/**
 * Bounded trust in reported heads. A report is believed at once when it is
 * plausible: no further ahead of the trusted head than `marginBlocks` plus
 * twice what the observed block rate allows for the time since the head last
 * moved, and not a height already found implausible (a fixed far-ahead value
 * is never plausible twice, however long the head has stood still).
 * Otherwise it is held as a claim of its source, and believed when a
 * *different* source reports a height above the trusted head within
 * `confirmWindowMs`: the believed height is the lower of the two. A source's
 * own later reports never confirm its claim.
 *
 * A claim still unconfirmed after `confirmWindowMs` while at least two other
 * sources have reported since it was made is refuted: `onRefuted` (the
 * upstream sits out). One source against one refutes nobody (the claim simply
 * stays unbelieved); with a single source plausibility alone decides.
 * With no trusted head yet, the first report is believed (the prober reports
 * its first round median first, and follow-down corrects a wrong start).
 */
export interface HeadTrustOptions {
  marginBlocks: number;
  confirmWindowMs: number;
  clock: () => number;
  /** A source's claim was refuted (null: nobody is told). */
  onRefuted: ((source: string, height: number) => void) | null;
}

interface Claim {
  height: number;
  /** When the source first claimed a head above the trusted one (kept while it goes on claiming). */
  since: number;
  /** Its latest report. */
  at: number;
}

/** Other sources that must have reported, none confirming, to refute a claim (one against one refutes nobody). */
const REFUTERS = 2;

/** Heights remembered as implausible (oldest forgotten first). */
const MAX_IMPLAUSIBLE = 256;

/** Pure: the highest height believable without confirmation. */
export function plausibleLimit(head: number, marginBlocks: number, blocksPerMs: number, sinceMs: number): number {
  return head + marginBlocks + Math.ceil(2 * blocksPerMs * Math.max(0, sinceMs));
}

export class HeadTrust {
  readonly #o: HeadTrustOptions;
  readonly #claims = new Map<string, Claim>();
  readonly #lastReport = new Map<string, number>();
  readonly #implausible = new Set<number>();
  /** First and last accepted (time, height): the observed block rate. */
  #first: { at: number; height: number } | null = null;
  #last: { at: number; height: number } | null = null;

  constructor(o: Partial<HeadTrustOptions>) {
    this.#o = {
      marginBlocks: o.marginBlocks ?? 10,
      confirmWindowMs: o.confirmWindowMs ?? 30_000,
      clock: o.clock ?? Date.now,
      onRefuted: o.onRefuted ?? null,
    };
  }

  #rate(): number {
    if (this.#first === null || this.#last === null) return 0;
    const dt = this.#last.at - this.#first.at;
    return dt > 0 ? Math.max(0, this.#last.height - this.#first.height) / dt : 0;
  }

  plausible(head: number | null, height: number): boolean {
    if (head === null || height <= head) return true;
    if (this.#implausible.has(height)) return false;
    const since = this.#last === null ? 0 : this.#o.clock() - this.#last.at;
    return height <= plausibleLimit(head, this.#o.marginBlocks, this.#rate(), since);
  }

  /**
   * The height to believe after this report, or null (nothing new believed).
   * `shown`: the height is only the highest one seen in the source's data, a
   * lower bound of its head: a plausible one never withdraws the source's claim.
   */
  report(head: number | null, height: number, source: string, shown = false): number | null {
    const now = this.#o.clock();
    this.#lastReport.set(source, now);
    this.#expire(now);
    if (this.plausible(head, height)) {
      if (!shown) this.#claims.delete(source);
      return height;
    }
    this.#remember(height);
    let confirmed: number | null = null;
    for (const [other, c] of this.#claims) {
      if (other === source) continue;
      const h = Math.min(c.height, height);
      if (confirmed === null || h > confirmed) confirmed = h;
    }
    const own = this.#claims.get(source);
    this.#claims.set(source, { height, since: own?.since ?? now, at: now });
    return confirmed !== null && (head === null || confirmed > head) ? confirmed : null;
  }

  #remember(height: number): void {
    this.#implausible.add(height);
    if (this.#implausible.size > MAX_IMPLAUSIBLE)
      this.#implausible.delete(this.#implausible.values().next().value as number);
  }

  /** Drops claims nobody repeated within the window; refutes the ones others out-reported. */
  #expire(now: number): void {
    const window = this.#o.confirmWindowMs;
    for (const [source, c] of this.#claims) {
      if (now - c.at > window) {
        this.#claims.delete(source);
        continue;
      }
      if (now - c.since <= window) continue;
      let others = 0;
      for (const [s, at] of this.#lastReport) if (s !== source && at > c.since) others++;
      if (others < REFUTERS) continue;
      this.#claims.delete(source);
      this.#o.onRefuted?.(source, c.height);
    }
  }

  accepted(height: number): void {
    const now = this.#o.clock();
    if (this.#first === null) this.#first = { at: now, height };
    this.#last = { at: now, height };
    for (const [source, c] of this.#claims) if (c.height <= height) this.#claims.delete(source);
  }

  reset(height: number): void {
    this.#claims.clear();
    this.#implausible.clear();
    const now = this.#o.clock();
    this.#first = { at: now, height };
    this.#last = { at: now, height };
  }
}
