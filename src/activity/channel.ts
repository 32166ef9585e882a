/**
 * The activity channel: which connection watches which entity, and the
 * fan-out of one block to the connections whose entities it names (nobody
 * else is written to). An entity stays watched STREAM_ACTIVITY_LINGER_MS
 * after its last connection closed, so a reconnect finds what it missed.
 */
import type { ChannelMember } from '../stream/hub.js';
import type { Subscriber } from '../stream/subscriber.js';
import { activityFrame, pendingFrame } from './frames.js';
import type { ActivityHistory, BlockRecord } from './history.js';

interface Watched {
  subs: Set<Subscriber>;
  /** First height covered since it became watched. */
  since: number;
  /** Clock time past which a watch without connections is forgotten. */
  lingerUntil: number;
}

export interface ActivityEvents {
  /** Block events handed to subscribers (live or replayed). */
  delivered(n: number): void;
  dropped(): void;
}

export class ActivityChannel {
  readonly #watch = new Map<string, Watched>();
  readonly #entitiesOf = new Map<Subscriber, ReadonlySet<string>>();
  readonly #history: ActivityHistory;
  readonly #lingerMs: number;
  readonly #clock: () => number;
  readonly #events: ActivityEvents;
  readonly #dropped: () => void;

  constructor(history: ActivityHistory, lingerMs: number, clock: () => number, events: ActivityEvents) {
    this.#history = history;
    this.#lingerMs = lingerMs;
    this.#clock = clock;
    this.#events = events;
    this.#dropped = () => events.dropped();
  }

  /** Open connections. */
  get size(): number {
    return this.#entitiesOf.size;
  }

  /** Entities watched by an open connection, and those only lingering. */
  counts(): { open: number; lingering: number } {
    let open = 0;
    let lingering = 0;
    const now = this.#clock();
    for (const w of this.#watch.values()) {
      if (w.subs.size > 0) open++;
      else if (w.lingerUntil > now) lingering++;
    }
    return { open, lingering };
  }

  /** First height for which `entity` has been watched without a break (null: not watched now). */
  since(entity: string): number | null {
    return this.watching(entity, this.#clock()) ? this.#watch.get(entity)!.since : null;
  }

  /** One connection's membership: it joins with its entities when its stream opens (`replayed`: block events in its replay). */
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

  /** Forgets lingering watches whose time is up. */
  prune(now: number): void {
    for (const [e, w] of this.#watch) if (w.subs.size === 0 && w.lingerUntil <= now) this.#watch.delete(e);
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

  /** New pool transactions: each connection watching a named entity gets a `pending` event (best effort, not replayed). */
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
    const next = this.#history.height + 1;
    for (const e of entities) {
      const w = this.#watch.get(e);
      if (w === undefined || (w.subs.size === 0 && w.lingerUntil <= this.#clock())) this.#watch.set(e, { subs: new Set([sub]), since: next, lingerUntil: 0 });
      else w.subs.add(sub);
    }
  }

  #leave(sub: Subscriber): void {
    const entities = this.#entitiesOf.get(sub);
    if (entities === undefined) return;
    this.#entitiesOf.delete(sub);
    const until = this.#clock() + this.#lingerMs;
    for (const e of entities) {
      const w = this.#watch.get(e);
      if (w === undefined) continue;
      w.subs.delete(sub);
      if (w.subs.size === 0) w.lingerUntil = until;
    }
  }
}
