/**
 * FleetBus: replica-to-replica messages over Redis pub/sub, on one channel
 * (`keyPrefix + 'bus'`). Publishing uses the shared command connection;
 * receiving uses a dedicated subscriber connection, which ioredis
 * re-subscribes after every reconnect, so the bus survives Redis restarts
 * (messages published while a replica is disconnected are lost: pub/sub is
 * at-most-once; the chain tracker is monotonic, so the next head heals it).
 *
 * A message is one JSON object per PUBLISH: `{ "v": 1, "from": "<replica id>", "t": "<kind>", ...fields }`,
 * the kind's fields and check from the one table of kinds (messages.ts). A kind not marked `echo` there
 * ('filled' is) is not delivered back to its sender. Malformed messages and unknown kinds are dropped.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';
import type { Bus } from './link.js';
import {
  isKind,
  KINDS,
  payloadFields,
  readPayload,
  type FleetBusEvents,
  type Kind,
  type MessagePayload,
} from './messages.js';

export interface FleetBusOptions {
  /** Command connection used for PUBLISH. */
  pub: RedisClient;
  /** Dedicated connection in subscriber mode (createRedis(url, cfg, { role: 'subscriber' })). */
  sub: RedisClient;
  keyPrefix: string;
  replicaId?: string;
  metrics?: Metrics;
}

/** One message as a Redis PUBLISH carries it. */
export function encodeRedis<K extends Kind>(from: string, kind: K, payload: MessagePayload<K>): string {
  return JSON.stringify({ v: 1, from, t: kind, ...payloadFields(kind, payload) });
}

/** A received message: its sender, kind and arguments; undefined when malformed. */
export function decodeRedis(text: string): { from: string; t: Kind; a: unknown[] } | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  if (o.v !== 1 || typeof o.from !== 'string' || !isKind(o.t)) return undefined;
  const a = readPayload(o.t, o);
  return a === undefined ? undefined : { from: o.from, t: o.t, a };
}

export class FleetBus extends EventEmitter<FleetBusEvents> implements Bus {
  readonly replicaId: string;
  readonly channel: string;
  readonly #pub: RedisClient;
  readonly #sub: RedisClient;
  readonly #metrics: Metrics;
  readonly #subscribed: Promise<boolean>;

  constructor(opts: FleetBusOptions) {
    super();
    this.replicaId = opts.replicaId ?? randomUUID();
    this.channel = `${opts.keyPrefix}bus`;
    this.#pub = opts.pub;
    this.#sub = opts.sub;
    this.#metrics = opts.metrics ?? noopMetrics;
    this.#sub.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.#receive(text);
    });
    // SUBSCRIBE whenever the connection is ready (sent earlier, during the ready check, it can be lost), after
    // every reconnect too (src/redis/client.ts: a single node's subscriber does not re-subscribe by itself; a
    // cluster's does, and a second SUBSCRIBE to a channel is harmless). A failure waits for the next 'ready'.
    let resolveFirst: (ok: boolean) => void = () => {};
    this.#subscribed = new Promise<boolean>((resolve) => {
      resolveFirst = resolve;
    });
    const onReady = () => {
      this.#sub.subscribe(this.channel).then(
        () => {
          resolveFirst(true);
          this.emit('subscribed');
        },
        () => {},
      );
    };
    this.#sub.on('ready', onReady);
    if (this.#sub.status === 'ready') onReady();
  }

  /** Resolves true once the first SUBSCRIBE succeeded, false after timeoutMs. */
  ready(timeoutMs = 5000): Promise<boolean> {
    return Promise.race([this.#subscribed, new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref())]);
  }

  /** Sends one message of `kind` to the fleet; true once Redis took it. */
  publish<K extends Kind>(kind: K, ...payload: MessagePayload<K>): Promise<boolean> {
    return this.#send(encodeRedis(this.replicaId, kind, payload));
  }

  async close(): Promise<void> {
    this.removeAllListeners();
    try {
      // Bounded: with Redis gone the command would wait in the subscriber's offline queue forever.
      if (this.#sub.status === 'ready')
        await Promise.race([this.#sub.unsubscribe(this.channel), new Promise((r) => setTimeout(r, 500).unref())]);
    } catch {
      // disconnected: nothing to undo
    }
  }

  async #send(text: string): Promise<boolean> {
    try {
      if (this.#pub.status !== 'ready') throw new Error('redis not connected');
      await this.#pub.publish(this.channel, text);
      return true;
    } catch {
      this.#metrics.tierError('redis', 'publish');
      return false;
    }
  }

  #receive(text: string): void {
    const m = decodeRedis(text);
    if (m === undefined || (m.from === this.replicaId && !KINDS[m.t].echo)) return;
    // The union of kinds is not one call signature: each message's arguments are its kind's.
    (this.emit as (t: string, ...a: unknown[]) => boolean).call(this, m.t, ...m.a);
  }
}
