/**
 * When new heads arrive, learned from the tracker's `head` events (probes,
 * answers, peers alike): the per-block intervals that drive the probe cadence
 * (cadence.ts), the probes spent per block, and the head detection delay.
 *
 * Head detection delay of a height H: from the end of the latest probe answer
 * that was in sync (an upstream reporting the best head the proxy had, so
 * nothing newer) to the moment the proxy believes H. The block reached the
 * upstreams somewhere in that span, so it bounds from above how long they had
 * it before the proxy did (a lagging upstream's answers do not count).
 *
 * The next expected window is placed from the time the last block was made,
 * estimated as the middle of that span rather than the moment it was seen
 * (late by up to a probe step and a round trip). A head learned before any
 * new head was seen (at start, a replica that takes the lease in its first
 * seconds) was made at an unknown time: the next block may come at once or a
 * whole interval later, so that span is probed densely (a longer step). The intervals stay measured
 * between the moments blocks were seen: a sparse probe's wide span beside a
 * dense probe's narrow one would skew a difference of midpoints.
 */
import type { EventEmitter } from 'node:events';
import type { ChainView } from '../chain/types.js';
import { nearestRank } from '../common/nearest-rank.js';
import { expectedWindow, nextProbe, plannedIntervals, type CadenceMode, type CadenceSettings } from './cadence.js';

/** Per-block intervals kept for the estimate. */
const INTERVALS = 32;
/** Detection delays kept for /status. */
const DELAYS = 128;

export interface HeadWatchOptions {
  tracker: ChainView & EventEmitter;
  settings: CadenceSettings;
  /** Monotonic ms (default performance.now). */
  clock?: () => number;
  /** Each detection delay, in seconds (the histogram); null: none. */
  onDelay?: ((seconds: number) => void) | null;
}

export interface HeadWatchStatus {
  adaptive: boolean;
  mode: CadenceMode;
  blockIntervalMs: number | null;
  windowMs: { from: number; to: number } | null;
  blocks: number;
  probes: number;
  probesPerBlockPerUpstream: number | null;
  detectionDelayMs: {
    last: number | null;
    p50: number | null;
    p90: number | null;
    max: number | null;
    samples: number;
  };
}

export class HeadWatch {
  readonly #o: HeadWatchOptions;
  readonly #clock: () => number;
  readonly #intervals: number[] = [];
  /** The fleet's intervals (the leader's), planned with until this replica has learned its own. */
  #fleet: readonly number[] = [];
  readonly #delays: number[] = [];
  readonly #upstreams = new Set<string>();
  #window: { from: number; to: number } | null = null;
  #lastHeight: number | null = null;
  /** Estimated time the last new head was made (the window is placed from it). */
  #lastAt: number | null = null;
  /** When the last new head was seen (the intervals are measured between these). */
  #seenAt: number | null = null;
  #quietAt: number | null = null;
  /**
   * When the head was first learned (at start, or after a rebase) without a new head seen: when its block was made
   * is unknown, so the next one may come any time within an interval; null once a new head is seen.
   */
  #unknownSince: number | null = null;
  #blocks = 0;
  #probes = 0;
  #mode: CadenceMode = 'learning';

  constructor(o: HeadWatchOptions) {
    this.#o = o;
    this.#clock = o.clock ?? (() => performance.now());
    o.tracker.on('head', (h: number) => this.#head(h));
    o.tracker.on('rebase', (h: number) => {
      this.#lastHeight = h;
      this.#lastAt = null;
      this.#seenAt = null;
    });
  }

  #head(height: number): void {
    const now = this.#clock();
    const prevH = this.#lastHeight;
    const prevAt = this.#seenAt;
    // An in-sync probe answer bounds when this block was made only if it came after the previous head (a follower
    // hears heads without probing: its last own probe may be minutes old).
    const quiet = this.#quietAt !== null && (prevAt === null || this.#quietAt >= prevAt) ? this.#quietAt : null;
    this.#lastHeight = height;
    this.#seenAt = now;
    this.#unknownSince = prevAt === null ? now : null;
    this.#lastAt = quiet !== null && quiet <= now ? (quiet + now) / 2 : now;
    if (prevH === null || height <= prevH) return;
    this.#blocks += height - prevH;
    if (prevAt !== null) {
      this.#intervals.push((now - prevAt) / (height - prevH));
      if (this.#intervals.length > INTERVALS) this.#intervals.shift();
      this.#plan();
    }
    if (quiet !== null) {
      const delay = now - quiet;
      this.#delays.push(delay);
      if (this.#delays.length > DELAYS) this.#delays.shift();
      this.#o.onDelay?.(delay / 1000);
    }
  }

  #plan(): void {
    this.#window = expectedWindow(plannedIntervals(this.#intervals, this.#fleet), this.#o.settings.denseMs);
  }

  /** The recent per-block intervals (ms) the cadence plans with: what a leader shares with the fleet. */
  intervals(): number[] {
    return [...plannedIntervals(this.#intervals, this.#fleet)];
  }

  /** The fleet's recent per-block intervals (a leader's): planned with until this replica has learned its own. */
  seed(intervals: readonly number[]): void {
    this.#fleet = intervals.slice(-INTERVALS);
    this.#plan();
  }

  /** A probe answer of `upstream` (its head, or null when it failed), after the head was reported. */
  probed(upstream: string, height: number | null): void {
    this.#probes++;
    this.#upstreams.add(upstream);
    const best = this.#o.tracker.bestHead();
    if (height !== null && best !== null && height >= best) this.#quietAt = this.#clock();
  }

  /**
   * Delay before the next probe of an upstream whose last probe began
   * `elapsedMs` ago: a dense step runs from probe start to probe start (the
   * step the window was planned with); the other delays from now.
   */
  nextDelay(elapsedMs = 0): number {
    const w = this.#window;
    // A head whose block time is unknown: the next block may come from now to the window's end, probed densely.
    const plan =
      this.#unknownSince !== null && w !== null
        ? nextProbe(this.#clock(), this.#unknownSince, { from: 0, to: w.to }, this.#o.settings)
        : nextProbe(this.#clock(), this.#lastAt, this.#window, this.#o.settings);
    this.#mode = plan.mode;
    return plan.mode === 'dense' ? Math.max(0, plan.delayMs - elapsedMs) : plan.delayMs;
  }

  get probes(): number {
    return this.#probes;
  }

  get blocks(): number {
    return this.#blocks;
  }

  status(): HeadWatchStatus {
    const sortedI = this.intervals().sort((a, b) => a - b);
    const sortedD = [...this.#delays].sort((a, b) => a - b);
    const n = this.#upstreams.size;
    const round = (v: number): number => Math.round(v);
    return {
      adaptive: this.#o.settings.denseMs > 0,
      mode: this.#mode,
      blockIntervalMs: sortedI.length === 0 ? null : round(nearestRank(sortedI, 0.5)),
      windowMs: this.#window === null ? null : { from: round(this.#window.from), to: round(this.#window.to) },
      blocks: this.#blocks,
      probes: this.#probes,
      probesPerBlockPerUpstream:
        this.#blocks === 0 || n === 0 ? null : Math.round((this.#probes / this.#blocks / n) * 10) / 10,
      detectionDelayMs: {
        last: this.#delays.length === 0 ? null : round(this.#delays[this.#delays.length - 1] ?? 0),
        p50: sortedD.length === 0 ? null : round(nearestRank(sortedD, 0.5)),
        p90: sortedD.length === 0 ? null : round(nearestRank(sortedD, 0.9)),
        max: sortedD.length === 0 ? null : round(sortedD[sortedD.length - 1] ?? 0),
        samples: sortedD.length,
      },
    };
  }
}
