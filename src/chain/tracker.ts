import { EventEmitter } from 'node:events';
import type { ChainFacts, ChainFeedback, ChainView } from './types.js';
import { HeadTrust, type HeadTrustOptions } from './head-trust.js';

/**
 * Tracks the best chain head and the highest final height. Sources: upstream
 * probes and block/max answers (named by upstream: bounded trust, see
 * head-trust.ts), blocks' `is_finality` seen in data, and peers over the Redis
 * bus (no source: a peer applied the same rules before publishing).
 *
 * The head only moves forward, except through `rebase` (every upstream has
 * reported lower heights for a while: the proxy follows them instead of
 * wedging). The final height never exceeds the head. Emits `head` and `final`
 * when they move forward and `rebase` when the head is lowered.
 */
export class ChainTracker extends EventEmitter implements ChainView, ChainFeedback {
  #head: number | null = null;
  #final: number | null = null;
  readonly #trust: HeadTrust;

  constructor(opts: Partial<HeadTrustOptions> = {}) {
    super();
    this.#trust = new HeadTrust(opts);
  }

  bestHead(): number | null {
    return this.#head;
  }

  finalHeight(): number | null {
    return this.#final;
  }

  /** Whether `height` reported by `source` would be believed now (no side effect). */
  plausible(height: number): boolean {
    return this.#trust.plausible(this.#head, height);
  }

  /**
   * A head reported by `source` (an upstream name; undefined: a trusted peer).
   * Believed when plausible or confirmed by a second report. `shown`: a height
   * seen in data, a lower bound of the source's head (it never withdraws the
   * source's claim). Returns true when the head moved forward.
   */
  observeHead(height: number, source?: string, shown = false): boolean {
    if (!Number.isSafeInteger(height) || height < 0) return false;
    const believed = source === undefined ? height : this.#trust.report(this.#head, height, source, shown);
    if (believed === null) return false;
    if (this.#head !== null && believed <= this.#head) return false;
    this.#head = believed;
    this.#trust.accepted(believed);
    this.emit('head', believed);
    return true;
  }

  /**
   * Facts learned from an upstream answer: its head (bounded trust, by source),
   * then its final height. Until a head is trusted answers teach nothing: the
   * first head is the median of the first probe round, not whichever answer came first.
   */
  apply(facts: ChainFacts): void {
    if (facts.head !== null && this.#head !== null) this.observeHead(facts.head, facts.source, facts.shown);
    if (facts.final !== null) this.observeFinal(facts.final);
  }

  /** Returns true when the final height moved forward; a final height above the head is not believed. */
  observeFinal(height: number): boolean {
    if (!Number.isSafeInteger(height) || height < 0) return false;
    if (this.#head === null || height > this.#head) return false;
    if (this.#final !== null && height <= this.#final) return false;
    this.#final = height;
    this.emit('final', height);
    return true;
  }

  /** Lowers the head to `height` (and the final height with it); emits `rebase`. */
  rebase(height: number): boolean {
    if (!Number.isSafeInteger(height) || height < 0 || this.#head === null || height >= this.#head) return false;
    const from = this.#head;
    this.#head = height;
    if (this.#final !== null && this.#final > height) this.#final = height;
    this.#trust.reset(height);
    this.emit('rebase', height, from);
    return true;
  }
}
