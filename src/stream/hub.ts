/**
 * Subscribers of the head stream and the fan-out to them. One frame's bytes go
 * to every subscriber; nothing here is per-subscriber work beyond a socket
 * write. Caps (global and per client), slow-consumer drops, the heartbeat and
 * the shutdown close live here.
 */
import type { ServerResponse } from 'node:http';

export interface HubLimits {
  maxStreams: number;
  maxPerClient: number;
  heartbeatMs: number;
  /** Unsent bytes past which a subscriber is dropped. */
  maxBufferBytes: number;
}

export interface HubEvents {
  /** Frames written to subscribers (one per subscriber per event). */
  sent(n: number): void;
  dropped(reason: 'slow'): void;
}

export type Admission = 'ok' | 'full' | 'client';

interface Subscriber {
  res: ServerResponse;
  client: string;
  /** Height of the last event this subscriber got (or resumed after): never sent twice. */
  last: number;
}

export class StreamHub {
  readonly #limits: HubLimits;
  readonly #events: HubEvents;
  readonly #subs = new Set<Subscriber>();
  /** Open streams per client address (the per-client cap). */
  readonly #perClient = new Map<string, number>();
  readonly #heartbeat: NodeJS.Timeout;
  #closed = false;

  constructor(limits: HubLimits, events: HubEvents, heartbeatFrame: Buffer) {
    this.#limits = limits;
    this.#events = events;
    this.#heartbeat = setInterval(() => this.#heartbeatAll(heartbeatFrame), limits.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Whether a new stream from `client` may open. */
  admit(client: string): Admission {
    if (this.#closed || this.#subs.size >= this.#limits.maxStreams) return 'full';
    if ((this.#perClient.get(client) ?? 0) >= this.#limits.maxPerClient) return 'client';
    return 'ok';
  }

  /**
   * Adds an open response (headers written, replay sent up to `last`, -1 for
   * none); it leaves when the socket closes.
   */
  add(res: ServerResponse, client: string, last: number): void {
    const sub: Subscriber = { res, client, last };
    this.#subs.add(sub);
    this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    res.once('close', () => this.#remove(sub));
  }

  /** Writes one frame to a single subscriber, dropping it when it reads too slowly. */
  write(res: ServerResponse, frame: Buffer): boolean {
    if (res.destroyed || res.writableEnded) return false;
    if (res.writableLength > this.#limits.maxBufferBytes) {
      this.#events.dropped('slow');
      res.destroy();
      return false;
    }
    res.write(frame);
    return true;
  }

  /** Sends the event of `height` to every subscriber that has not had it. */
  broadcast(height: number, frame: Buffer): void {
    let n = 0;
    for (const sub of this.#subs) {
      if (sub.last >= height) continue;
      sub.last = height;
      if (this.write(sub.res, frame)) n++;
    }
    if (n > 0) this.#events.sent(n);
  }

  #heartbeatAll(frame: Buffer): void {
    for (const sub of this.#subs) this.write(sub.res, frame);
  }

  get size(): number {
    return this.#subs.size;
  }

  /** Ends every stream (shutdown): clients see a clean end and reconnect elsewhere. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const sub of this.#subs) sub.res.end();
  }

  #remove(sub: Subscriber): void {
    if (!this.#subs.delete(sub)) return;
    const n = (this.#perClient.get(sub.client) ?? 1) - 1;
    if (n <= 0) this.#perClient.delete(sub.client);
    else this.#perClient.set(sub.client, n);
  }
}
