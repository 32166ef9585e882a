/**
 * The activity channel: which connection watches which entity, and the
 * fan-out of one block to the connections whose entities it names (nobody
 * else is written to). An entity stays watched STREAM_ACTIVITY_LINGER_MS
 * after its last connection closed, so a reconnect finds what it missed.
 *
 * Bounded (STREAM_ACTIVITY_WATCH_BYTES): every watched entity, open or
 * lingering, is charged WATCH_BYTES and every (connection, entity) pair
 * MEMBER_BYTES. A stream that does not fit even once every lingering watch is
 * forgotten is refused; one that fits forgets the oldest lingering watches it
 * needs room for. Lingering watches are also bounded per client (lingering.ts).
 */
import type { ChannelMember } from '../hub.js';
import type { Subscriber } from '../subscriber.js';
import { activityFrame, pendingFrame } from './frames.js';
import type { ActivityHistory, BlockRecord } from './history.js';
import { Lingering } from './lingering.js';

/**
 * Heap charged per watched entity: the map slot, the record, its set of
 * connections, the address string and the lingering ledger's slots (about
 * 360 bytes live on Node 20, 22 and 24), doubled for the collector's headroom
 * as the cache's entries are.
 */
const WATCH_BYTES = 800;
/** Heap charged per (connection, entity) pair: a slot in each of two sets (about 50 bytes live), doubled. */
const MEMBER_BYTES = 120;

interface Watched {
  subs: Set<Subscriber>;
  /** First height covered since it became watched. */
  since: number;
  /** Clock time past which a watch without connections is forgotten. */
  lingerUntil: number;
}

export interface WatchBounds {
  /** Bytes charged to every watch at once (STREAM_ACTIVITY_WATCH_BYTES). */
  maxBytes: number;
  /** Lingering watches one client may leave. */
  lingeringPerClient: number;
}

export interface ActivityEvents {
  /** Block events handed to subscribers (live or replayed). */
  delivered(n: number): void;
  dropped(): void;
  /** A lingering watch was forgotten before its time: its client left too many, or a new stream needed the room. */
  forgotten(reason: 'client' | 'budget'): void;
}

export class ActivityChannel {
  readonly #watch = new Map<string, Watched>();
  readonly #entitiesOf = new Map<Subscriber, ReadonlySet<string>>();
  readonly #lingering: Lingering;
  readonly #history: ActivityHistory;
  readonly #lingerMs: number;
  readonly #maxBytes: number;
  readonly #clock: () => number;
  readonly #events: ActivityEvents;
  readonly #dropped: () => void;
  /** (connection, entity) pairs. */
  #members = 0;

  constructor(
    history: ActivityHistory,
    lingerMs: number,
    bounds: WatchBounds,
    clock: () => number,
    events: ActivityEvents,
  ) {
    this.#history = history;
    this.#lingerMs = lingerMs;
    this.#maxBytes = bounds.maxBytes;
    this.#lingering = new Lingering(bounds.lingeringPerClient);
    this.#clock = clock;
    this.#events = events;
    this.#dropped = () => events.dropped();
  }

  /** Open connections. */
  get size(): number {
    return this.#entitiesOf.size;
  }

  /** Bytes charged to the watches (STREAM_ACTIVITY_WATCH_BYTES bounds it). */
  get bytes(): number {
    return this.#watch.size * WATCH_BYTES + this.#members * MEMBER_BYTES;
  }

  /**
   * Entities watched by an open connection, those only lingering (those whose
   * time is up are forgotten first), and the clients these are charged to.
   */
  counts(): { open: number; lingering: number; clients: number } {
    this.prune(this.#clock());
    const lingering = this.#lingering.size;
    return { open: this.#watch.size - lingering, lingering, clients: this.#lingering.clients };
  }

  /** Whether a stream watching `entities` fits the budget, once every other lingering watch is forgotten. */
  fits(entities: ReadonlySet<string>): boolean {
    this.prune(this.#clock());
    let added = 0;
    for (const e of entities) if ((this.#watch.get(e)?.subs.size ?? 0) === 0) added++;
    const open = this.#watch.size - this.#lingering.size;
    return (open + added) * WATCH_BYTES + (this.#members + entities.size) * MEMBER_BYTES <= this.#maxBytes;
  }

  /** First height for which `entity` has been watched without a break (null: not watched now). */
  since(entity: string): number | null {
    return this.watching(entity, this.#clock()) ? this.#watch.get(entity)!.since : null;
  }

  /**
   * One connection's membership: it joins with its entities when
   * its stream opens (`replayed`: block events in its replay).
   */
  member(entities: ReadonlySet<string>, replayed: number): ChannelMember {
    return {
      dense: false,
      dropped: this.#dropped,
      join: (sub) => {
        this.#join(sub, entities);
        if (replayed > 0) this.#events.delivered(replayed);
      },
      leave: (sub) => this.#leave(sub),
    };
  }

  /** Whether a block naming `entity` must be read: watched now, or lingering. */
  watching(entity: string, now: number): boolean {
    const w = this.#watch.get(entity);
    return w !== undefined && (w.subs.size > 0 || w.lingerUntil > now);
  }

  /** Forgets lingering watches whose time is up (oldest first: they end in the order they began). */
  prune(now: number): void {
    for (let e = this.#lingering.oldest(); e !== undefined; e = this.#lingering.oldest()) {
      const w = this.#watch.get(e);
      if (w !== undefined && w.lingerUntil > now) return;
      this.#forget(e);
    }
  }

  /** Sends a kept block to every connection watching an entity it names. */
  publish(r: BlockRecord): void {
    if (r.matched.size === 0) return;
    const mine = new Map<Subscriber, Set<string>>();
    for (const e of r.matched) {
      const w = this.#watch.get(e);
      if (w === undefined) continue;
      for (const sub of w.subs) {
        const set = mine.get(sub);
        if (set === undefined) mine.set(sub, new Set([e]));
        else set.add(e);
      }
    }
    if (mine.size === 0) return;
    // Connections watching the same entities of this block share one frame.
    const frames = new Map<string, Buffer>();
    let n = 0;
    for (const [sub, set] of mine) {
      const key = [...set].sort().join(',');
      let frame = frames.get(key);
      if (frame === undefined) frames.set(key, (frame = activityFrame(r, set)));
      if (sub.last < r.height && !sub.res.destroyed) {
        sub.deliver({ height: r.height, frame });
        n++;
      }
    }
    if (n > 0) this.#events.delivered(n);
  }

  /**
   * New pool transactions: each connection watching a named entity gets a `pending` event (best effort, not replayed).
   */
  pending(hashes: readonly string[], addresses: readonly string[], contracts: readonly string[]): void {
    const mine = new Map<Subscriber, { a: string[]; c: string[] }>();
    const add = (list: readonly string[], kind: 'a' | 'c'): void => {
      for (const e of list) {
        const w = this.#watch.get(e);
        if (w === undefined) continue;
        for (const sub of w.subs) {
          let m = mine.get(sub);
          if (m === undefined) mine.set(sub, (m = { a: [], c: [] }));
          m[kind].push(e);
        }
      }
    };
    add(addresses, 'a');
    add(contracts, 'c');
    for (const [sub, m] of mine) sub.aside(pendingFrame(hashes, m.a, m.c));
  }

  /** Heights above `height` are void: subscribers that got one are told with `frame`. */
  rebase(height: number, frame: Buffer): void {
    for (const sub of this.#entitiesOf.keys()) sub.rebase(height, frame);
  }

  #join(sub: Subscriber, entities: ReadonlySet<string>): void {
    this.#entitiesOf.set(sub, entities);
    this.#members += entities.size;
    const next = this.#history.height + 1;
    const now = this.#clock();
    for (const e of entities) {
      const w = this.#watch.get(e);
      if (w !== undefined && w.subs.size === 0) this.#lingering.delete(e);
      if (w === undefined || (w.subs.size === 0 && w.lingerUntil <= now))
        this.#watch.set(e, { subs: new Set([sub]), since: next, lingerUntil: 0 });
      else w.subs.add(sub);
    }
    // Room for it (checked by fits() before the stream opened): the oldest lingering watches go.
    while (this.bytes > this.#maxBytes) {
      const oldest = this.#lingering.oldest();
      if (oldest === undefined) break;
      this.#forget(oldest);
      this.#events.forgotten('budget');
    }
  }

  #leave(sub: Subscriber): void {
    const entities = this.#entitiesOf.get(sub);
    if (entities === undefined) return;
    this.#entitiesOf.delete(sub);
    this.#members -= entities.size;
    const until = this.#clock() + this.#lingerMs;
    for (const e of entities) {
      const w = this.#watch.get(e);
      if (w === undefined) continue;
      w.subs.delete(sub);
      if (w.subs.size > 0) continue;
      if (this.#lingerMs === 0) {
        this.#watch.delete(e);
        continue;
      }
      w.lingerUntil = until;
      const pushed = this.#lingering.add(e, sub.client);
      if (pushed !== null) {
        this.#watch.delete(pushed);
        this.#events.forgotten('client');
      }
    }
  }

  /** A lingering watch is no more. */
  #forget(entity: string): void {
    this.#lingering.delete(entity);
    this.#watch.delete(entity);
  }
}
