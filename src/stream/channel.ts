/**
 * One stream's events and its subscribers: publish (history, then fan-out of
 * the same frame bytes), rebase (history and pending frames above the new head
 * dropped, subscribers that got some told). Any stream type (the head stream,
 * one per topic) is a channel of the shared hub.
 */
import { EventHistory, type StreamEvent } from './history.js';
import type { ChannelMember } from './hub.js';
import type { Subscriber } from './subscriber.js';

export interface ChannelEvents {
  sent(n: number): void;
}

export class StreamChannel implements ChannelMember {
  readonly history: EventHistory;
  readonly dense = true;
  readonly dropped = null;
  readonly #subs = new Set<Subscriber>();
  readonly #events: ChannelEvents;

  constructor(historySize: number, events: ChannelEvents) {
    this.history = new EventHistory(historySize);
    this.#events = events;
  }

  join(sub: Subscriber): void {
    this.#subs.add(sub);
  }

  leave(sub: Subscriber): void {
    this.#subs.delete(sub);
  }

  get size(): number {
    return this.#subs.size;
  }

  /** Records the event and sends it to every subscriber that has not had its height. */
  publish(e: StreamEvent): void {
    this.history.push(e);
    let n = 0;
    for (const sub of this.#subs) n += sub.deliver(e);
    if (n > 0) this.#events.sent(n);
  }

  /** The head was lowered to `height` from `from`; `frame` tells the subscribers that got events above it. */
  rebase(height: number, from: number, frame: Buffer): void {
    this.history.rebase(height, from);
    for (const sub of this.#subs) sub.rebase(height, frame);
  }
}
