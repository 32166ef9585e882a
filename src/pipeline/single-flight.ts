/**
 * In-process single flight: concurrent callers for one key share one promise.
 * The leader's work is not tied to any caller (a follower or the leader's own
 * client disconnecting cancels nothing), and a failure reaches every follower
 * as the same rejection, never as N retries.
 */
export class SingleFlight<T> {
  readonly #flights = new Map<string, Promise<T>>();

  /** `joined` is true when the caller attached to a flight already under way. */
  run(key: string, work: () => Promise<T>): { promise: Promise<T>; joined: boolean } {
    const existing = this.#flights.get(key);
    if (existing !== undefined) return { promise: existing, joined: true };
    const promise = (async () => {
      try {
        return await work();
      } finally {
        this.#flights.delete(key);
      }
    })();
    this.#flights.set(key, promise);
    return { promise, joined: false };
  }

  get size(): number {
    return this.#flights.size;
  }

  has(key: string): boolean {
    return this.#flights.has(key);
  }
}
