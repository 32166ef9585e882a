/**
 * Every open stream of the replica, whatever its channel: the caps (global
 * MAX_STREAMS and per client identity), the heartbeat, slow-consumer drops
 * and the shutdown close. Nothing here is per-subscriber work beyond a socket
 * write.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ResumePlan } from './resume.js';
import { QueueBudget } from './queue-budget.js';
import { Subscriber, type DropReason, type SubscriberEvents } from './subscriber.js';

export interface HubLimits {
  maxStreams: number;
  maxPerClient: number;
  heartbeatMs: number;
  /** Queued live bytes plus the socket's unsent bytes past which a subscriber is dropped. */
  maxBufferBytes: number;
  /** Queued live bytes of all subscribers together (queue-budget.ts). */
  maxBufferTotalBytes: number;
}

export interface HubEvents {
  /** Frames written to subscribers (one per subscriber per event). */
  sent(n: number): void;
  dropped(reason: DropReason): void;
}

export type StreamAdmission = 'ok' | 'full' | 'client';

/** Where an open stream's events come from (a channel, or one connection's view of one). */
export interface ChannelMember {
  join(sub: Subscriber): void;
  leave(sub: Subscriber): void;
  /** Events at every height (the head stream): a skipped height is named by a `gap`. False: sparse events. */
  readonly dense: boolean;
  /** Told when its subscriber is dropped as too slow (on top of the hub's count). */
  readonly dropped: (() => void) | null;
}

/** `change`: a stream opened or left (tests await it). */
interface StreamHubEvents {
  change: [];
}

export class StreamHub extends EventEmitter<StreamHubEvents> {
  readonly #limits: HubLimits;
  readonly #subEvents: SubscriberEvents;
  readonly #subs = new Set<Subscriber>();
  /** Open streams per client identity (the per-client cap). */
  readonly #perClient = new Map<string, number>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #budget: QueueBudget;
  #closed = false;

  constructor(limits: HubLimits, events: HubEvents, heartbeatFrame: Buffer) {
    super();
    this.#limits = limits;
    this.#budget = new QueueBudget(limits.maxBufferTotalBytes, () => this.#subs);
    this.#subEvents = { sent: (n) => events.sent(n), slow: (reason) => events.dropped(reason) };
    this.#heartbeat = setInterval(() => {
      for (const sub of this.#subs) sub.comment(heartbeatFrame);
    }, limits.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Whether a new stream from `client` (a client identity) may open. */
  admit(client: string): StreamAdmission {
    if (this.#closed || this.#subs.size >= this.#limits.maxStreams) return 'full';
    if ((this.#perClient.get(client) ?? 0) >= this.#limits.maxPerClient) return 'client';
    return 'ok';
  }

  /**
   * Adds an open response (headers written) to `channel`, counted at once;
   * writes `opening` then the plan's replay, paced. It leaves when the socket closes.
   */
  open(res: ServerResponse, client: string, channel: ChannelMember, plan: ResumePlan, opening: Buffer): void {
    // Gone already: its 'close' was emitted, so it would never leave.
    if (res.destroyed || res.socket === null || res.socket.destroyed) return;
    const dropped = channel.dropped;
    const events: SubscriberEvents =
      dropped === null
        ? this.#subEvents
        : { sent: this.#subEvents.sent, slow: (reason) => (this.#subEvents.slow(reason), dropped()) };
    const sub = new Subscriber(
      res,
      client,
      plan.last,
      plan.replay,
      { maxBytes: this.#limits.maxBufferBytes, budget: this.#budget },
      events,
      channel.dense,
    );
    this.#subs.add(sub);
    this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    channel.join(sub);
    res.once('close', () => {
      channel.leave(sub);
      sub.release();
      this.#remove(sub);
    });
    sub.comment(opening);
    sub.pump();
    this.emit('change');
  }

  get size(): number {
    return this.#subs.size;
  }

  /** Bytes all subscribers have queued (STREAM_MAX_BUFFER_TOTAL_BYTES bounds it). */
  get queuedBytes(): number {
    return this.#budget.used;
  }

  /** Client identities with an open stream (at most `size`: an identity leaves with its last stream). */
  get clients(): number {
    return this.#perClient.size;
  }

  /** Ends every stream (shutdown): clients see a clean end and reconnect elsewhere. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const sub of this.#subs) sub.end();
  }

  #remove(sub: Subscriber): void {
    if (!this.#subs.delete(sub)) return;
    const n = (this.#perClient.get(sub.client) ?? 1) - 1;
    if (n <= 0) this.#perClient.delete(sub.client);
    else this.#perClient.set(sub.client, n);
    this.emit('change');
  }
}
