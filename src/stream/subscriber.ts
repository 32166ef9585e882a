/**
 * One open stream: what it was sent, and the paced writer. Frames are written
 * while the socket takes them (write returns true); then the subscriber waits
 * for 'drain'. The replay (from the history) is pulled as the socket drains,
 * so it is never held twice; live events that arrive meanwhile are queued
 * here (shared frame buffers, counted in bytes). A subscriber whose queued
 * live bytes plus the socket's unsent bytes (`writableLength`) would pass the
 * cap is too slow: it is dropped; so is one whose event does not fit what all
 * subscribers together may queue (queue-budget.ts).
 */
import type { ServerResponse } from 'node:http';
import { gapFrame } from './frames.js';
import type { StreamEvent } from './history.js';
import { QUEUED_EVENT_BYTES, type Queued, type QueueBudget } from './queue-budget.js';

/** Why a subscriber was disconnected: its own cap, or the total of all subscribers. */
export type DropReason = 'slow' | 'total';

export interface SubscriberEvents {
  /** Frames written to this subscriber. */
  sent(n: number): void;
  /** The subscriber read too slowly and was disconnected. */
  slow(reason: DropReason): void;
}

const charge = (e: StreamEvent): number => e.frame.length + QUEUED_EVENT_BYTES;

export class Subscriber implements Queued {
  readonly res: ServerResponse;
  readonly client: string;
  /** Height of the last event handed to this subscriber (written or queued): no height twice, except after a rebase. */
  last: number;
  /** Highest height actually written to the socket (-1: none). */
  #written = -1;
  #replay: readonly StreamEvent[];
  #next = 0;
  #queue: StreamEvent[] = [];
  #queued = 0;
  #blocked = false;
  readonly #maxBytes: number;
  readonly #budget: QueueBudget;
  readonly #events: SubscriberEvents;
  readonly #dense: boolean;
  readonly #drained = (): void => {
    this.#blocked = false;
    this.pump();
  };

  constructor(
    res: ServerResponse,
    client: string,
    last: number,
    replay: readonly StreamEvent[],
    bounds: { maxBytes: number; budget: QueueBudget },
    events: SubscriberEvents,
    dense = true,
  ) {
    this.res = res;
    this.client = client;
    this.last = last;
    this.#replay = replay;
    this.#maxBytes = bounds.maxBytes;
    this.#budget = bounds.budget;
    this.#events = events;
    this.#dense = dense;
  }

  /** Writes pending frames until the socket pushes back or nothing is left. */
  pump(): void {
    let n = 0;
    while (!this.#blocked) {
      let e: StreamEvent | undefined;
      if (this.#next < this.#replay.length) e = this.#replay[this.#next++];
      else if ((e = this.#queue.shift()) !== undefined) this.#unqueue(e);
      if (e === undefined) break;
      if (!this.#write(e.frame)) break;
      if (e.height > this.#written) this.#written = e.height;
      n++;
    }
    if (this.#next >= this.#replay.length && this.#replay.length > 0) {
      // Replay done: let its events go.
      this.#replay = [];
      this.#next = 0;
    }
    if (n > 0) this.#events.sent(n);
  }

  /**
   * A live event: written now when the socket is free, else queued (or the
   * subscriber dropped as too slow). On a dense stream, heights this
   * subscriber would skip (it resumed from a point the history did not cover)
   * are named by a `gap` first. Returns frames written.
   */
  deliver(e: StreamEvent): number {
    if (e.height <= this.last || this.res.destroyed) return 0;
    let n = 0;
    if (this.#dense && e.marker !== true && this.last >= 0 && e.height > this.last + 1)
      n = this.#send({ height: e.height - 1, frame: gapFrame(this.last + 1, e.height - 1), marker: true });
    this.last = e.height;
    return n + this.#send(e);
  }

  #send(e: StreamEvent): number {
    if (this.#blocked) {
      this.#enqueue(e);
      return 0;
    }
    if (!this.#write(e.frame)) return 0;
    this.#written = e.height;
    return 1;
  }

  /** A comment (heartbeat) when nothing is pending: a busy stream is not idle. */
  comment(frame: Buffer): void {
    if (!this.#blocked) this.#write(frame);
  }

  /**
   * A frame outside the height order (no id), best effort: written
   * when the socket is free, else skipped. Returns frames written.
   */
  aside(frame: Buffer): number {
    return !this.#blocked && this.#write(frame) ? 1 : 0;
  }

  /**
   * Heights above `height` are no longer believed: pending ones
   * are dropped, and a client that got some is told (`frame`).
   */
  rebase(height: number, frame: Buffer): void {
    if (this.last <= height || this.res.destroyed) return;
    this.last = height;
    this.#replay = this.#replay.slice(this.#next).filter((e) => e.height <= height);
    this.#next = 0;
    const kept = this.#queue.filter((e) => e.height <= height);
    for (const e of this.#queue) if (e.height > height) this.#unqueue(e);
    this.#queue = kept;
    if (this.#written <= height) return;
    this.#written = height;
    const e = { height, frame };
    if (this.#blocked) this.#enqueue(e);
    else if (this.#write(frame)) this.#events.sent(1);
  }

  /** Ends the stream (shutdown): cleanly when the socket has taken everything, else at once. */
  end(): void {
    if (this.#blocked) this.res.destroy();
    else this.res.end();
  }

  /** Live bytes queued here (not yet handed to the socket). */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** The connection closed: what it had queued is given back. */
  release(): void {
    for (const e of this.#queue) this.#unqueue(e);
    this.#queue = [];
  }

  /** Disconnected to make room in what all subscribers may queue. */
  drop(): void {
    this.#disconnect('total');
  }

  #disconnect(reason: DropReason): void {
    // Given back even when the socket is gone already (its close not yet handled): the budget counts on it.
    this.release();
    if (this.res.destroyed) return;
    this.#events.slow(reason);
    this.res.destroy();
  }

  #enqueue(e: StreamEvent): void {
    if (this.res.destroyed) return;
    if (this.#queued + e.frame.length + this.res.writableLength > this.#maxBytes) return this.#disconnect('slow');
    if (!this.#budget.take(charge(e), this)) return this.#disconnect('total');
    this.#queue.push(e);
    this.#queued += e.frame.length;
  }

  #unqueue(e: StreamEvent): void {
    this.#queued -= e.frame.length;
    this.#budget.give(charge(e));
  }

  /** false when the frame did not leave: the socket is gone, or it pushes back (then wait for 'drain'). */
  #write(frame: Buffer): boolean {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return false;
    if (res.write(frame)) return true;
    this.#blocked = true;
    res.once('drain', this.#drained);
    // The frame is in the socket's buffer: it left as far as the proxy is concerned.
    return true;
  }
}
