/**
 * A cluster worker's side of the fleet without Redis (WORKERS > 1): the bus,
 * the leases and the record of touched sets are messages to the primary
 * (hub.ts), which answers every one; the channel is the cluster's own IPC.
 *
 * Fleet single flight: a worker refused a flight's lease waits for the
 * leader's release, which carries the leader's entry (the workers share no
 * cache tier), at most the lease time; then it fetches itself. A miss on a
 * key another worker filled recently is answered from that worker's memory
 * when it holds a newer fresh entry (the primary asks it: `lend`). The bus is
 * ready at once; the chain tracker is joined to it as with Redis. The fleet
 * leader role (src/fleet/duty.ts) takes its lease from the primary and its
 * heads and pool polls travel on this bus.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { CacheEntry } from '../cache/types.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { FleetCoordinator } from '../fleet/connect.js';
import { connectTrackerToBus } from '../fleet/tracker-bus.js';
import type { FleetBusEvents, Kind, MessagePayload } from '../fleet/messages.js';
import type { NamedLease } from '../fleet/named-lease.js';
import type { DutyTransport } from '../fleet/duty.js';
import type { Bus, FleetLink } from '../fleet/link.js';
import { decodeEntry, encodeEntry } from '../redis/codec.js';
import { fromIpc, isOurs, toIpc, type BusMessage, type ToPrimary, type ToWorker } from './protocol.js';

/** The IPC channel of a cluster worker (`process` there). */
export interface Channel {
  send?: (message: ToPrimary) => unknown;
  connected?: boolean;
  on(event: 'message', fn: (m: unknown) => void): unknown;
}

export interface WorkerFleetOptions {
  /** Joined to the IPC bus; null: the fleet is Redis (only /metrics goes through the primary). */
  tracker: ChainTracker | null;
  /** This worker's entry of a key, sent with the release of its flight. */
  peek: (key: string) => CacheEntry | undefined;
  /** This worker's entry of a key if fresh, lent to another worker's miss; absent: nothing lent until `lendFrom`. */
  fresh?: (key: string) => CacheEntry | undefined;
  /** This worker's own /metrics text. */
  render: () => Promise<string>;
  /** Single-flight lease time (REDIS_LEASE_MS: the same rule as a Redis fleet). */
  leaseMs: number;
  channel?: Channel;
}

export interface WorkerFleet {
  link: FleetLink;
  coordinator: FleetCoordinator;
  /** Named leases held in the primary. */
  named: NamedLease;
  /** The fleet leader role of the workers without Redis: its lease in the primary, heads and pool polls over IPC. */
  duty: DutyTransport;
  /** The machine's /metrics document, every worker's samples labelled `worker`. */
  scrape(): Promise<string>;
  /** From now on another worker's miss is lent what `fresh` finds (the stage judging freshness is built later). */
  lendFrom(fresh: (key: string) => CacheEntry | undefined): void;
}

class IpcBus extends EventEmitter<FleetBusEvents> implements Bus {
  readonly #send: (m: BusMessage) => boolean;

  constructor(send: (m: BusMessage) => boolean) {
    super();
    this.#send = send;
  }

  async publish<K extends Kind>(kind: K, ...payload: MessagePayload<K>): Promise<boolean> {
    return this.#send(toIpc(kind, payload));
  }

  /** A relayed message: raised with its arguments; a malformed one or an unknown kind is dropped. */
  deliver(raw: unknown): void {
    const m = fromIpc(raw);
    // The union of kinds is not one call signature: each message's arguments are its kind's.
    if (m !== undefined) (this.emit as (t: string, ...a: unknown[]) => boolean).call(this, m.t, ...m.a);
  }
}

const token = (): string => randomBytes(12).toString('base64url');

export function connectWorkerFleet(o: WorkerFleetOptions): WorkerFleet {
  const channel: Channel = o.channel ?? process;
  let seq = 0;
  const replies = new Map<number, (m: ToWorker) => void>();
  /** Refused flights: the leader's fill (an entry, or null: fetch yourself). */
  const fills = new Map<string, { settled: Promise<string | null>; settle: (entry: string | null) => void }>();
  const held = new Map<string, { token: string; since: number }>();
  let freshOf = o.fresh ?? null;

  const send = (m: ToPrimary): boolean => {
    if (channel.send === undefined || channel.connected === false) return false;
    try {
      channel.send(m);
      return true;
    } catch {
      return false; // the primary is gone: this worker is shutting down
    }
  };
  /** Sends a request; resolves with its answer, or null when the primary does not answer. */
  const ask = (make: (id: number) => ToPrimary, timeoutMs: number): Promise<ToWorker | null> => {
    const id = ++seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        replies.delete(id);
        resolve(null);
      }, timeoutMs);
      timer.unref();
      replies.set(id, (m) => {
        clearTimeout(timer);
        replies.delete(id);
        resolve(m);
      });
      if (!send(make(id))) {
        clearTimeout(timer);
        replies.delete(id);
        resolve(null);
      }
    });
  };
  const bus = new IpcBus((m) => send({ cp: 1, t: 'bus', m }));

  const onMessage = (raw: unknown): void => {
    if (!isOurs<ToWorker>(raw)) return;
    const m = raw;
    if (m.t === 'bus') bus.deliver(m.m);
    else if (m.t === 'filled') fills.get(m.name)?.settle(m.entry);
    else if (m.t === 'render') void o.render().then((text) => send({ cp: 1, t: 'rendered', id: m.id, text }));
    else if (m.t === 'lend') void lend(m.name, m.after).then((entry) => send({ cp: 1, t: 'lent', id: m.id, entry }));
    else replies.get(m.id)?.(m);
  };
  channel.on('message', onMessage);

  const flight = (key: string): string => `flight:${key}`;
  const encoded = async (e: CacheEntry): Promise<string> =>
    (await encodeEntry(e, Number.POSITIVE_INFINITY)).toString('base64');
  /** This worker's fresh entry of a flight's key, when created after `after`. */
  async function lend(name: string, after: number): Promise<string | null> {
    const e = freshOf !== null && name.startsWith('flight:') ? freshOf(name.slice('flight:'.length)) : undefined;
    return e !== undefined && e.createdAt > after ? encoded(e) : null;
  }

  /** True: lead (also when the primary does not answer: act alone, as with Redis down). */
  const acquire = async (name: string, wait: boolean, newerThan: number | null): Promise<boolean> => {
    const t = token();
    // Registered before asking: a refusal and its fill (a peer's entry) may arrive together.
    const mine = wait && !fills.has(name);
    if (mine) {
      let settle: (entry: string | null) => void = () => {};
      const settled = new Promise<string | null>((r) => (settle = r));
      fills.set(name, { settled, settle });
    }
    const answer = await ask(
      (id) => ({ cp: 1, t: 'acquire', id, name, token: t, ttlMs: o.leaseMs, wait, lend: newerThan }),
      o.leaseMs,
    );
    const ok = answer === null || answer.t !== 'granted' || answer.ok;
    if (ok && wait) held.set(name, { token: t, since: Date.now() });
    if (ok && mine) fills.delete(name);
    return ok;
  };

  // For the life of the process, as the channel itself.
  if (o.tracker !== null) connectTrackerToBus(o.tracker, bus);
  const link: FleetLink = {
    bus,
    lease: { acquire: (key) => acquire(key, false, null) },
    record: {
      read: async () => {
        const a = await ask((id) => ({ cp: 1, t: 'record', id, set: null }), 5000);
        return a !== null && a.t === 'record' ? a.sets : null;
      },
      add: async (set) => void send({ cp: 1, t: 'record', id: 0, set }),
    },
    ready: async () => true,
    onReconnect: () => () => {},
  };
  const coordinator: FleetCoordinator = {
    // A peer's entry is taken only when newer than this worker's own copy
    // (a refresh ahead of expiry is not answered by it).
    acquire: (key) => acquire(flight(key), true, o.peek(key)?.createdAt ?? -1),
    async waitForFill(key) {
      const fill = fills.get(flight(key));
      if (fill === undefined) return undefined;
      try {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<null>((r) => (timer = setTimeout(() => r(null), o.leaseMs)));
        const text = await Promise.race([fill.settled, deadline]);
        clearTimeout(timer);
        return text === null ? undefined : decodeEntry(Buffer.from(text, 'base64'));
      } finally {
        fills.delete(flight(key));
      }
    },
    async release(key) {
      const name = flight(key);
      const mine = held.get(name);
      if (mine === undefined) return;
      held.delete(name);
      // Only an entry made by this flight (not an older one it failed to replace).
      const e = o.peek(key);
      const entry = e !== undefined && e.createdAt >= mine.since ? await encoded(e) : null;
      send({ cp: 1, t: 'release', name, token: mine.token, entry });
    },
  };
  const granted = (a: ToWorker | null): boolean | null => (a !== null && a.t === 'granted' ? a.ok : null);
  const named: NamedLease = {
    acquire: async (name, t, ttlMs) =>
      granted(await ask((id) => ({ cp: 1, t: 'acquire', id, name, token: t, ttlMs, wait: false, lend: null }), ttlMs)),
    renew: async (name, t, ttlMs) =>
      granted(await ask((id) => ({ cp: 1, t: 'renew', id, name, token: t, ttlMs }), ttlMs)),
    release: async (name, t) => void send({ cp: 1, t: 'release', name, token: t, entry: null }),
  };
  return {
    link,
    coordinator,
    named,
    duty: { lease: named, name: 'leader:workers', bus },
    async scrape() {
      const a = await ask((id) => ({ cp: 1, t: 'scrape', id }), 5000);
      return a !== null && a.t === 'scraped' ? a.text : o.render();
    },
    lendFrom(fresh) {
      freshOf = fresh;
    },
  };
}
