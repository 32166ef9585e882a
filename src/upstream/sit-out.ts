/**
 * Upstreams benched for misbehaviour: a head refuted by the other sources, or
 * the minority of too many content disputes. While it sits out an upstream
 * gets no request while another can take it, casts no vote, and its probed
 * heads are not reported to the tracker (it is still probed, so its status
 * stays visible). A new offence while benched extends the bench.
 */
import type { Logger } from 'pino';

export type SitOutReason = 'head' | 'disputes';

export interface SitOutState {
  until: number;
  reason: SitOutReason;
  detail: string;
}

export interface SitOutsOptions {
  /** How long an offender sits out. */
  durationMs: number;
  clock?: () => number;
  logger?: Logger | null;
  /** Counts a bench (metric); null: none. */
  onSitOut?: ((upstream: string, reason: SitOutReason) => void) | null;
}

export class SitOuts {
  readonly #o: SitOutsOptions;
  readonly #clock: () => number;
  readonly #benched = new Map<string, SitOutState>();

  constructor(o: SitOutsOptions) {
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  /** Benches `upstream` from now for the configured time. */
  bench(upstream: string, reason: SitOutReason, detail: string): void {
    const until = this.#clock() + this.#o.durationMs;
    this.#benched.set(upstream, { until, reason, detail });
    this.#o.logger?.warn({ upstream, reason, detail, sitOutMs: this.#o.durationMs }, 'upstream sits out');
    this.#o.onSitOut?.(upstream, reason);
  }

  /** Whether `upstream` is benched now. */
  active(upstream: string): boolean {
    const s = this.#benched.get(upstream);
    if (s === undefined) return false;
    if (this.#clock() < s.until) return true;
    this.#benched.delete(upstream);
    return false;
  }

  /** The bench of `upstream`, or null when it plays. */
  state(upstream: string): SitOutState | null {
    return this.active(upstream) ? (this.#benched.get(upstream) ?? null) : null;
  }
}
