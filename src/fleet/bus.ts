/**
 * FleetBus: replica-to-replica messages over Redis pub/sub, on one channel
 * (`keyPrefix + 'bus'`). Publishing uses the shared command connection;
 * receiving uses a dedicated subscriber connection, which ioredis
 * re-subscribes after every reconnect, so the bus survives Redis restarts
 * (messages published while a replica is disconnected are lost: pub/sub is
 * at-most-once; the chain tracker is monotonic, so the next head heals it).
 *
 * Message (JSON, one per PUBLISH):
 *   { "v": 1, "from": "<replica id>", "t": "head",       "height": 123, "final": false }
 *   { "v": 1, "from": "<replica id>", "t": "filled",     "key": "k" }
 *   { "v": 1, "from": "<replica id>", "t": "touched",    "set": TouchedSet, "pending": PendingTouched }
 *   { "v": 1, "from": "<replica id>", "t": "purge",      "mark": PurgeMark }
 *   { "v": 1, "from": "<replica id>", "t": "heads",      "lease": "<leader lease>",
 *     "heads": [{ "id": "<upstream id>", "head": 123 | null, "ok": true, "ageMs": 40, "answer"?: "<body>" }] }
 *   { "v": 1, "from": "<replica id>", "t": "pool",       "lease": "<leader lease>",
 *     "known": true, "stale": false, "pending": PendingTouched }
 *   { "v": 1, "from": "<replica id>", "t": "entries",    "lease": "<leader lease>", "entries": ["<base64>"] }
 * 'heads' (the fleet leader's per-upstream probe results, also its heartbeat),
 * 'pool' (its pending-pool poll) and 'entries' (its refreshed entries,
 * shared-entries.ts) come from the leader (src/fleet/duty.ts).
 * 'touched' (the replica that read a block's touched set shares it, src/invalidation/reader.ts)
 * and 'purge' (an operator's purge, src/purge/purger.ts) are, like 'head', not delivered back to their sender.
 * A replica ignores its own 'head' messages (no echo). 'filled'
 * (lease.ts: the leader of a fleet-wide flight is done) is delivered to every
 * replica, the sender included. Malformed messages are dropped.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { ChainTracker } from '../chain/tracker.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';
import type { PendingTouched, TouchedSet } from '../chain/touched.js';
import type { Bus } from './link.js';
import type { FleetBusEvents, PoolState, PurgeMark, UpstreamHead } from './messages.js';

export interface FleetBusOptions {
  /** Command connection used for PUBLISH. */
  pub: RedisClient;
  /** Dedicated connection in subscriber mode (createRedis(url, cfg, { role: 'subscriber' })). */
  sub: RedisClient;
  keyPrefix: string;
  replicaId?: string;
  metrics?: Metrics;
}
type Message =
  | { v: 1; from: string; t: 'head'; height: number; final: boolean }
  | { v: 1; from: string; t: 'filled'; key: string }
  | { v: 1; from: string; t: 'touched'; set: TouchedSet; pending: PendingTouched }
  | { v: 1; from: string; t: 'purge'; mark: PurgeMark }
  | { v: 1; from: string; t: 'heads'; lease: string; heads: UpstreamHead[] }
  | ({ v: 1; from: string; t: 'pool'; lease: string } & PoolState)
  | { v: 1; from: string; t: 'entries'; lease: string; entries: string[] };

/** Longest probe answer a 'heads' message may carry (a head answer is about 100 bytes). */
const MAX_ANSWER = 16 * 1024;

const isAnswer = (a: unknown): boolean => a === undefined || (typeof a === 'string' && a.length <= MAX_ANSWER);

function isHeads(v: unknown): v is UpstreamHead[] {
  return (
    Array.isArray(v) &&
    v.every(
      (h: unknown) =>
        typeof h === 'object' &&
        h !== null &&
        typeof (h as UpstreamHead).id === 'string' &&
        typeof (h as UpstreamHead).ok === 'boolean' &&
        Number.isFinite((h as UpstreamHead).ageMs) &&
        isAnswer((h as UpstreamHead).answer) &&
        ((h as UpstreamHead).head === null || Number.isSafeInteger((h as UpstreamHead).head)),
    )
  );
}

function isMark(v: unknown): v is PurgeMark {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return typeof m.target === 'string' && typeof m.soft === 'boolean' && Number.isSafeInteger(m.at);
}

const strings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A touched set of the current shape (a replica on an older version sends none: dropped). */
export function isTouched(v: unknown): v is TouchedSet {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(s.height) &&
    typeof s.blockHash === 'string' &&
    strings(s.addresses) &&
    strings(s.contracts) &&
    strings(s.deployed) &&
    (s.day === null || Number.isSafeInteger(s.day)) &&
    strings(s.tokens) &&
    (s.left === undefined || strings(s.left)) &&
    typeof s.complete === 'boolean'
  );
}

function isPending(v: unknown): v is PendingTouched {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return strings(p.hashes) && strings(p.addresses) && strings(p.contracts);
}

function parse(text: string): Message | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  if (o.v !== 1 || typeof o.from !== 'string') return undefined;
  if (o.t === 'head' && Number.isSafeInteger(o.height) && typeof o.final === 'boolean') return o as Message;
  if (o.t === 'filled' && typeof o.key === 'string') return o as Message;
  if (o.t === 'touched' && isTouched(o.set) && isPending(o.pending)) return o as Message;
  if (o.t === 'purge' && isMark(o.mark)) return o as Message;
  if (o.t === 'heads' && typeof o.lease === 'string' && isHeads(o.heads)) return o as Message;
  if (o.t === 'entries' && typeof o.lease === 'string' && strings(o.entries)) return o as Message;
  if (
    o.t === 'pool' &&
    typeof o.lease === 'string' &&
    (o.known === false || (o.known === true && typeof o.stale === 'boolean' && isPending(o.pending)))
  )
    return o as Message;
  return undefined;
}

export class FleetBus extends EventEmitter<FleetBusEvents> {
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

  publishHead(height: number, final: boolean): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'head', height, final });
  }

  publishTouched(set: TouchedSet, pending: PendingTouched): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'touched', set, pending });
  }

  publishFilled(key: string): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'filled', key });
  }

  publishHeads(lease: string, heads: UpstreamHead[]): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'heads', lease, heads });
  }

  publishPool(lease: string, state: PoolState): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'pool', lease, ...state });
  }

  publishEntries(lease: string, entries: string[]): Promise<void> {
    return this.#publish({ v: 1, from: this.replicaId, t: 'entries', lease, entries });
  }

  /** True once Redis took the message. */
  publishPurge(mark: PurgeMark): Promise<boolean> {
    return this.#send({ v: 1, from: this.replicaId, t: 'purge', mark });
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

  async #publish(msg: Message): Promise<void> {
    await this.#send(msg);
  }

  async #send(msg: Message): Promise<boolean> {
    try {
      if (this.#pub.status !== 'ready') throw new Error('redis not connected');
      await this.#pub.publish(this.channel, JSON.stringify(msg));
      return true;
    } catch {
      this.#metrics.tierError('redis', 'publish');
      return false;
    }
  }

  #receive(text: string): void {
    const m = parse(text);
    if (m === undefined) return;
    if (m.t === 'filled') {
      this.emit('filled', m.key);
      return;
    }
    if (m.from === this.replicaId) return;
    if (m.t === 'touched') this.emit('touched', m.set, m.pending);
    else if (m.t === 'purge') this.emit('purge', m.mark);
    else if (m.t === 'heads') this.emit('heads', m.lease, m.heads);
    else if (m.t === 'entries') this.emit('entries', m.lease, m.entries);
    else if (m.t === 'pool')
      this.emit('pool', m.lease, m.known ? { known: true, stale: m.stale, pending: m.pending } : { known: false });
    else this.emit('head', m.height, m.final);
  }
}

/**
 * Local head/final advances are published; remote ones are applied with
 * observeHead/observeFinal. The tracker is monotonic and remote applications
 * are not re-published, so there is no echo loop. Returns a disconnect function.
 */
export function connectTrackerToBus(tracker: ChainTracker, bus: Bus): () => void {
  let applying = false;
  const onHead = (h: number) => {
    if (!applying) void bus.publishHead(h, false);
  };
  const onFinal = (h: number) => {
    if (!applying) void bus.publishHead(h, true);
  };
  const onRemote = (height: number, final: boolean) => {
    applying = true;
    try {
      if (final) tracker.observeFinal(height);
      else tracker.observeHead(height);
    } finally {
      applying = false;
    }
  };
  // After a reconnect, tell the fleet what this replica knows (peers may have missed it).
  const onSubscribed = () => {
    const head = tracker.bestHead();
    const final = tracker.finalHeight();
    if (head !== null) void bus.publishHead(head, false);
    if (final !== null) void bus.publishHead(final, true);
  };
  tracker.on('head', onHead);
  tracker.on('final', onFinal);
  bus.on('head', onRemote);
  bus.on('subscribed', onSubscribed);
  return () => {
    tracker.off('head', onHead);
    tracker.off('final', onFinal);
    bus.off('head', onRemote);
    bus.off('subscribed', onSubscribed);
  };
}
