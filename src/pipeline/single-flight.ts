/**
 * In-process single flight: concurrent callers for one key share one promise,
 * and a failure reaches every follower as the same rejection, never as N
 * retries.
 *
 * Cancellation: a caller may pass the signal of its client (aborted when the
 * client goes away). When every caller of a flight has gone, the flight's own
 * signal is aborted (the upstream request is cancelled) and the flight leaves
 * the table at once, so a later caller starts afresh instead of joining a
 * doomed flight. A flight is never cancelled when:
 * - any caller came without a signal (a background refresh, an in-process
 *   composition): someone still wants the result;
 * - it is about to finish: its work reported `answered()` (the upstream answer
 *   is in; what is left, storing it, is cheap and useful to the cache).
 */
export interface FlightContext {
  /** Aborted when every caller has gone (and the flight was cancellable). */
  signal: AbortSignal;
  /** The expensive part is done: the flight is no longer cancelled. */
  answered(): void;
}

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Callers with a signal still waiting. */
  waiters: number;
  /** A caller without a signal joined, or the work has answered. */
  pinned: boolean;
}

export class SingleFlight<T> {
  readonly #flights = new Map<string, Flight<T>>();
  /** Resolvers of idle() calls, told when the table empties. */
  #idle: Array<() => void> = [];

  /**
   * `joined` is true when the caller attached to a flight already under way.
   * `caller`: the caller's client signal; without it the flight is never cancelled.
   */
  run(
    key: string,
    work: (ctx: FlightContext) => Promise<T>,
    caller?: AbortSignal,
  ): { promise: Promise<T>; joined: boolean } {
    const existing = this.#flights.get(key);
    if (existing !== undefined) {
      this.#attach(key, existing, caller);
      return { promise: existing.promise, joined: true };
    }
    const controller = new AbortController();
    const flight: Flight<T> = { promise: undefined as unknown as Promise<T>, controller, waiters: 0, pinned: false };
    const ctx: FlightContext = {
      signal: controller.signal,
      answered: () => {
        flight.pinned = true;
      },
    };
    flight.promise = (async () => {
      try {
        return await work(ctx);
      } finally {
        this.#end(key, flight);
      }
    })();
    this.#flights.set(key, flight);
    this.#attach(key, flight, caller);
    return { promise: flight.promise, joined: false };
  }

  #attach(key: string, flight: Flight<T>, caller: AbortSignal | undefined): void {
    if (caller === undefined) {
      flight.pinned = true;
      return;
    }
    if (caller.aborted) return;
    flight.waiters += 1;
    const leave = () => {
      flight.waiters -= 1;
      if (flight.waiters > 0 || flight.pinned || flight.controller.signal.aborted) return;
      this.#end(key, flight);
      flight.controller.abort(new FlightCancelled(key));
    };
    caller.addEventListener('abort', leave, { once: true });
    const detach = () => caller.removeEventListener('abort', leave);
    flight.promise.then(detach, detach);
  }

  #end(key: string, flight: Flight<T>): void {
    if (this.#flights.get(key) !== flight) return;
    this.#flights.delete(key);
    if (this.#flights.size > 0 || this.#idle.length === 0) return;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  get size(): number {
    return this.#flights.size;
  }

  /** Resolves once no flight is under way (at once when none is). */
  idle(): Promise<void> {
    if (this.#flights.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  has(key: string): boolean {
    return this.#flights.has(key);
  }
}

/** The reason a flight's signal is aborted with: every caller went away. */
class FlightCancelled extends Error {
  override readonly name = 'AbortError';

  constructor(key: string) {
    super(`every client waiting for ${key} has gone`);
  }
}
