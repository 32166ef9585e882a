/**
 * Fleet reconciliation of the local buckets through Redis, off the request
 * path. Every `intervalMs`, one pipeline carries, for each client that this
 * replica admitted since the last round, `INCRBY <prefix><clientKey>:<window>
 * <admitted here since then>` + `PEXPIRE`: commands per round = clients active
 * here in the last interval, whatever the request rate. The reply is the
 * fleet-wide count of that fixed window; what the other replicas admitted
 * since this replica last looked is debited from the local bucket. A client
 * idle here learns about the others' spending with its next admission here.
 *
 * Bound: a replica decides from a view of the fleet at most one interval plus
 * one round trip old. In any window the fleet admits for one client at most
 * `max + (N - 1) × A`, N replicas, A = what one replica admits for that client
 * in one interval + round trip (≤ the client's request rate on that replica ×
 * (interval + RTT), and never more than `max`: a replica's own bucket holds
 * at most `max`).
 *
 * Fail open: every pipeline goes through `guarded()` (the tier's breaker and
 * deadline); a failed round drops its increments and the buckets keep
 * limiting locally (per replica) until Redis answers again.
 */
import type { RedisGuard } from '../redis/guard.js';
import { guarded } from '../redis/guard.js';
import type { Bucket } from './buckets.js';

export interface FleetSyncOptions {
  guard: RedisGuard;
  /** Redis key prefix, e.g. `chainproxy:rl:`. */
  prefix: string;
  intervalMs: number;
  clock: () => number;
}

export class FleetSync {
  readonly #o: FleetSyncOptions;
  #watched: Bucket[] = [];
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #lastOk = true;

  constructor(o: FleetSyncOptions) {
    this.#o = o;
  }

  /** A bucket admitted a request and is not listed for the next round yet. */
  watch(b: Bucket): void {
    this.#watched.push(b);
  }

  /** Whether the last round that had something to reconcile reached Redis. */
  get ok(): boolean {
    return this.#lastOk;
  }

  get watching(): number {
    return this.#watched.length;
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.sync(), this.#o.intervalMs);
    this.#timer.unref();
  }

  /** One reconciliation round (rounds never overlap: a caller during one waits for it). */
  sync(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #round(): Promise<void> {
    const now = this.#o.clock();
    const batch = this.#watched;
    this.#watched = [];
    for (const b of batch) b.watched = false;
    if (batch.length === 0) return;

    const { client } = this.#o.guard;
    const pipe = client.pipeline();
    const sent: number[] = [];
    const windows: number[] = [];
    for (const b of batch) {
      const win = Math.floor(now / b.budget.windowMs);
      const key = `${this.#o.prefix}${b.key}:${win}`;
      const n = b.pending;
      b.pending = 0;
      sent.push(n);
      windows.push(win);
      pipe.incrby(key, n).pexpire(key, b.budget.windowMs * 2);
    }
    const replies = await guarded(this.#o.guard, 'set', () => pipe.exec());
    this.#lastOk = replies !== undefined && replies !== null;
    if (replies === undefined || replies === null) return;

    batch.forEach((b, i) => {
      const n = sent[i]!;
      const reply = replies[i * 2];
      if (reply === undefined || reply[0] !== null) return;
      const total = Number(reply[1] ?? 0);
      const win = windows[i]!;
      if (b.window !== win) {
        b.window = win;
        b.mine = 0;
        b.others = 0;
      }
      b.mine += n;
      const others = total - b.mine;
      if (others > b.others) {
        b.tokens -= others - b.others;
        b.others = others;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
