/**
 * Slots of one upstream: at most `active` requests on the wire, at most
 * `queued` more waiting for a slot; past that a request is refused at once
 * (UPSTREAM_OVERLOADED, 503 with Retry-After), instead of queueing without
 * bound and timing out slowly. Time spent waiting here is the proxy's, not the
 * upstream's: the attempt timeout, latency and breaker start only once a slot
 * is held. A waiter whose signal aborts leaves the queue.
 */
import { ProxyError } from '../errors/catalog.js';

export class UpstreamSlots {
  readonly #active: number;
  readonly #queued: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(active: number, queued: number) {
    this.#active = Math.max(1, active);
    this.#queued = Math.max(0, queued);
  }

  /** True when a new request would be refused. */
  full(): boolean {
    return this.#running >= this.#active && this.#waiting.length >= this.#queued;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves with a release function once a slot is held; rejects when the queue is full or `signal` aborts. */
  acquire(signal: AbortSignal | undefined): Promise<() => void> | (() => void) {
    if (this.#running < this.#active) {
      this.#running++;
      return this.#releaser();
    }
    if (this.#waiting.length >= this.#queued) {
      throw new ProxyError('UPSTREAM_OVERLOADED', undefined, {
        detail: `${this.#waiting.length} requests already queued`,
      });
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#running++;
        resolve(this.#releaser());
      };
      const onAbort = (): void => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#running--;
      this.#waiting.shift()?.();
    };
  }
}
