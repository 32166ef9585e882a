/**
 * The fleet leader role: one replica at a time holds a named lease
 * (named-lease.ts) and does the fleet's background work (head probes, the
 * pending-pool poll, refresh-ahead: duty.ts). Timing, for a lease of `ttlMs`:
 *
 *   leader     renews every `renewMs` (compare-and-pexpire); a renewal that
 *              finds another token (or none) is a loss at once; while the
 *              transport does not answer it stays leader only until its last
 *              good renewal (or the acquire) plus ttlMs, measured from when
 *              that command was sent, so it steps down no later than the lease
 *              expires for the others
 *   follower   tries to acquire every `tryMs`
 *
 * A dead leader is replaced within ttlMs + tryMs; a closing one releases the
 * lease so a follower takes it at its next try. `isLeader()` also checks the
 * local deadline, so a stalled event loop never acts on an expired lease.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { NamedLease } from './named-lease.js';

export interface FleetLeaderOptions {
  lease: NamedLease;
  /** The lease's name (one leader per name). */
  name: string;
  ttlMs: number;
  renewMs: number;
  tryMs: number;
  /** Monotonic ms (default performance.now). */
  clock?: () => number;
}

export interface FleetLeaderEvents {
  gained: [];
  lost: [];
}

export class FleetLeader extends EventEmitter<FleetLeaderEvents> {
  readonly #o: FleetLeaderOptions;
  readonly #clock: () => number;
  readonly #token = randomBytes(12).toString('base64url');
  /** Leader until this moment unless renewed (-Infinity: follower). */
  #until = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #changes = 0;

  constructor(o: FleetLeaderOptions) {
    super();
    this.#o = o;
    this.#clock = o.clock ?? (() => performance.now());
  }

  /** Starts trying at once. */
  start(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#schedule(0);
  }

  isLeader(): boolean {
    return this.#clock() < this.#until;
  }

  /** Times this replica gained or lost the role. */
  get changes(): number {
    return this.#changes;
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const { lease, name, ttlMs } = this.#o;
    const sent = this.#clock();
    const was = this.#until > Number.NEGATIVE_INFINITY;
    const ok = was ? await lease.renew(name, this.#token, ttlMs) : await lease.acquire(name, this.#token, ttlMs);
    if (this.#closed) return;
    if (ok === true) this.#until = sent + ttlMs;
    else if (ok === false || this.#clock() >= this.#until) this.#until = Number.NEGATIVE_INFINITY;
    const is = this.#until > Number.NEGATIVE_INFINITY;
    if (is !== was) {
      this.#changes++;
      this.emit(is ? 'gained' : 'lost');
    }
    this.#schedule(is ? Math.min(this.#o.renewMs, Math.max(0, this.#until - this.#clock())) : this.#o.tryMs);
  }

  /** Stops; a leader releases the lease (a follower takes it at its next try). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    const was = this.#until > Number.NEGATIVE_INFINITY;
    this.#until = Number.NEGATIVE_INFINITY;
    if (was) {
      this.#changes++;
      this.emit('lost');
      await this.#o.lease.release(this.#o.name, this.#token);
    }
    this.removeAllListeners();
  }
}
