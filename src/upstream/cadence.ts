/**
 * Probe cadence adapted to the observed block interval (pure). With fewer than
 * `minSamples` intervals learned it is the fixed sparse interval. Then, from
 * the last new head at `lastAt`, the next block is expected between the 5th
 * and 95th percentiles of the recent per-block intervals, widened on each side
 * by 5 % of the median interval (at most 250 ms, at least one dense step):
 *
 *   before the window  → sleep until it opens (at most sparseMs)
 *   inside the window  → denseMs, or longer so the window holds at most
 *                        MAX_DENSE_PROBES probes
 *   past it (late)     → back off: a quarter of the time overdue, between
 *                        denseMs and sparseMs
 *
 * So the probes per block stay bounded: at most MAX_DENSE_PROBES plus the
 * sparse ones (today's fixed cadence), however the chain behaves.
 */
import { nearestRank } from '../common/nearest-rank.js';

export interface CadenceSettings {
  /** Probe interval outside the window, and while learning (UPSTREAM_PROBE_INTERVAL_MS). */
  sparseMs: number;
  /** Probe interval inside the window (UPSTREAM_PROBE_DENSE_MS); 0: the cadence stays fixed at sparseMs. */
  denseMs: number;
}

export type CadenceMode = 'fixed' | 'learning' | 'waiting' | 'dense' | 'late';

export interface CadencePlan {
  delayMs: number;
  mode: CadenceMode;
}

/** The window's margin each side: this share of the median interval, at most GUARD_MAX_MS, at least one dense step. */
const GUARD_SHARE = 0.05;
const GUARD_MAX_MS = 250;

/** Dense probes per window at most: a wider window (an irregular chain) gets a longer dense step. */
const MAX_DENSE_PROBES = 20;

/** Percentiles of the recent intervals bounding the window. */
const LOW = 0.05;
const HIGH = 0.95;

/** Intervals needed before the cadence adapts. */
const MIN_SAMPLES = 3;

/** The window, in ms after the last new head, where the next block is expected; null while learning. */
export function expectedWindow(intervals: readonly number[], denseMs: number): { from: number; to: number } | null {
  if (intervals.length < MIN_SAMPLES) return null;
  const sorted = [...intervals].sort((a, b) => a - b);
  const guard = Math.max(denseMs, Math.min(GUARD_MAX_MS, nearestRank(sorted, 0.5) * GUARD_SHARE));
  return { from: Math.max(0, nearestRank(sorted, LOW) - guard), to: nearestRank(sorted, HIGH) + guard };
}

/**
 * The intervals the cadence plans with: this replica's own once it has
 * `minSamples` of them; before that the fleet's (a leader's 'heads' message),
 * the oldest replaced by its own as they come.
 */
export function plannedIntervals(own: readonly number[], fleet: readonly number[]): readonly number[] {
  if (own.length >= MIN_SAMPLES || fleet.length < MIN_SAMPLES) return own;
  return [...fleet.slice(own.length), ...own];
}

export function nextProbe(
  now: number,
  lastAt: number | null,
  window: { from: number; to: number } | null,
  s: CadenceSettings,
): CadencePlan {
  if (s.denseMs <= 0) return { delayMs: s.sparseMs, mode: 'fixed' };
  if (window === null || lastAt === null) return { delayMs: s.sparseMs, mode: 'learning' };
  const since = now - lastAt;
  if (since < window.from) return { delayMs: Math.max(1, Math.min(s.sparseMs, window.from - since)), mode: 'waiting' };
  if (since <= window.to)
    return { delayMs: Math.max(s.denseMs, (window.to - window.from) / MAX_DENSE_PROBES), mode: 'dense' };
  return { delayMs: Math.min(s.sparseMs, Math.max(s.denseMs, (since - window.to) / 4)), mode: 'late' };
}
