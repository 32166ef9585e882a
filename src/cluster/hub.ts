/**
 * The cluster primary as its workers' fleet without Redis: it relays every bus
 * message (whatever its kind) to every other worker (the sender too for a kind marked `echo`), grants named leases
 * (the fleet single flight, the block reader's `block:N` jobs, a leader
 * role), hands a released lease's entry to the workers that were refused it,
 * keeps the last touched sets for workers that join later, and answers a
 * /metrics scrape with every worker's document merged (merge-metrics.ts).
 * A worker that leaves loses its leases at once: whoever waited fetches itself.
 *
 * Its leases are the fleet's NamedLease (src/fleet/named-lease.ts: token-checked,
 * expiring, renewable), served from a map instead of Redis keys. A flight's lease
 * asks for more, because the workers share no cache tier: a refused asker that
 * `wait`s is kept as a waiter and handed the entry the holder's release carries
 * (with Redis the follower polls the shared tier; 'filled' is a hint), and the
 * primary may lend a peer's entry (below), which needs to know who filled what.
 * A dead holder's leases drop when its process exits (Redis cannot tell: there
 * a lease is given up only when it expires). Both act alone when their server
 * does not answer (Redis down; the primary silent past the lease time).
 *
 * Peer fill: a flight's lease asked for while nobody holds it, for a key
 * another live worker filled recently (fillers.ts), is held for the asker
 * while that worker is asked for its fresh entry (`lend`); the asker is then
 * refused and handed the entry as a fill (no upstream request), or, when the
 * peer has nothing newer or is silent past the lend wait (WORKERS_LEND_WAIT_MS), granted the lease.
 */
import type { TouchedSet } from '../chain/touched.js';
import { isKind, KINDS } from '../fleet/messages.js';
import { Fillers } from './fillers.js';
import { mergeMetrics } from './merge-metrics.js';
import type { ToPrimary, ToWorker } from './protocol.js';

/** Touched sets kept for joining workers (the Redis record keeps about as many). */
const RECORD_SETS = 64;
/** A worker that does not render its metrics by then is left out of the scrape. */
const SCRAPE_WAIT_MS = 2000;
/** Keys whose last filler is remembered (names only: about 100 bytes each). */
const FILLED_KEYS = 65_536;

interface Held {
  token: string;
  owner: number;
  until: number;
  /** Workers refused while it was held: they get the fill. */
  waiters: Set<number>;
}

/** A peer asked for its entry on behalf of an asker, whose lease is held meanwhile. */
interface Lend {
  asker: number;
  askerId: number;
  peer: number;
  name: string;
  token: string;
  timer: NodeJS.Timeout;
}

interface Scrape {
  asker: number;
  askerId: number;
  waiting: Set<number>;
  texts: Map<number, string>;
  timer: NodeJS.Timeout;
}

export class Hub {
  readonly #clock: () => number;
  /** A peer that has not lent its entry by then: the asker fetches itself. */
  readonly #lendWaitMs: number;
  readonly #peers = new Map<number, (m: ToWorker) => void>();
  readonly #leases = new Map<string, Held>();
  readonly #record: TouchedSet[] = [];
  readonly #scrapes = new Map<number, Scrape>();
  readonly #fillers = new Fillers(FILLED_KEYS);
  readonly #lends = new Map<number, Lend>();
  #scrapeSeq = 0;
  #lendSeq = 0;
  #swept = Number.NEGATIVE_INFINITY;
  #head: number | null = null;
  #final: number | null = null;

  constructor(lendWaitMs: number, clock: () => number = Date.now) {
    this.#lendWaitMs = lendWaitMs;
    this.#clock = clock;
  }

  /** A worker is up: it learns the heads the others know. */
  join(worker: number, send: (m: ToWorker) => void): void {
    this.#peers.set(worker, send);
    if (this.#head !== null) send({ cp: 1, t: 'bus', m: { t: 'head', a: [this.#head, false] } });
    if (this.#final !== null) send({ cp: 1, t: 'bus', m: { t: 'head', a: [this.#final, true] } });
  }

  /** A worker is gone: its leases are dropped and their waiters told to fetch themselves. */
  leave(worker: number): void {
    this.#peers.delete(worker);
    this.#fillers.leave(worker);
    for (const [id, l] of this.#lends) {
      if (l.peer === worker) this.#lent(id, null);
      else if (l.asker === worker) {
        clearTimeout(l.timer);
        this.#lends.delete(id);
      }
    }
    for (const [name, held] of this.#leases) {
      held.waiters.delete(worker);
      if (held.owner === worker) this.#drop(name, held, null);
    }
    for (const [id, s] of this.#scrapes) {
      if (s.asker === worker) {
        clearTimeout(s.timer);
        this.#scrapes.delete(id);
      } else if (s.waiting.delete(worker)) this.#finishIfDone(id, s);
    }
  }

  receive(from: number, m: ToPrimary): void {
    switch (m.t) {
      case 'bus': {
        if (m.m.t === 'head') this.#learnHead(...m.m.a);
        const echo = isKind(m.m.t) && KINDS[m.m.t].echo;
        for (const [id, send] of this.#peers) if (id !== from || echo) send({ cp: 1, t: 'bus', m: m.m });
        return;
      }
      case 'acquire': {
        const ok = this.#acquire(from, m);
        if (ok !== null) this.#send(from, { cp: 1, t: 'granted', id: m.id, ok });
        return;
      }
      case 'renew': {
        const held = this.#live(m.name);
        const ok = held !== null && held.token === m.token;
        if (ok) held.until = this.#clock() + m.ttlMs;
        return this.#send(from, { cp: 1, t: 'granted', id: m.id, ok });
      }
      case 'release': {
        const held = this.#leases.get(m.name);
        if (held === undefined || held.token !== m.token) return;
        if (m.entry !== null) this.#fillers.filled(m.name, from);
        return this.#drop(m.name, held, m.entry);
      }
      case 'lent':
        return this.#lends.get(m.id)?.peer === from ? this.#lent(m.id, m.entry) : undefined;
      case 'record':
        if (m.set !== null) this.#remember(m.set);
        return this.#send(from, { cp: 1, t: 'record', id: m.id, sets: [...this.#record] });
      case 'scrape':
        return this.#scrape(from, m.id);
      case 'rendered': {
        const s = this.#scrapes.get(m.id);
        if (s === undefined || !s.waiting.delete(from)) return;
        s.texts.set(from, m.text);
        return this.#finishIfDone(m.id, s);
      }
    }
  }

  /** Leases held now (status, tests). */
  get leases(): number {
    let n = 0;
    for (const name of this.#leases.keys()) if (this.#live(name) !== null) n++;
    return n;
  }

  close(): void {
    for (const s of this.#scrapes.values()) clearTimeout(s.timer);
    this.#scrapes.clear();
    for (const l of this.#lends.values()) clearTimeout(l.timer);
    this.#lends.clear();
  }

  /** Whether granted; null: answered later, once a peer lent its entry or did not (#lent). */
  #acquire(
    from: number,
    m: { id: number; name: string; token: string; ttlMs: number; wait: boolean; lend: number | null },
  ): boolean | null {
    const { name, token, ttlMs } = m;
    this.#sweep();
    const held = this.#live(name);
    if (held !== null && held.token !== token) {
      if (m.wait && held.owner !== from) held.waiters.add(from);
      return false;
    }
    this.#leases.set(name, {
      token,
      owner: from,
      until: this.#clock() + ttlMs,
      waiters: held?.waiters ?? new Set<number>(),
    });
    if (held !== null || !m.wait || m.lend === null) return true;
    const peer = this.#fillers.of(name);
    if (peer === undefined || peer === from || !this.#peers.has(peer)) return true;
    const id = ++this.#lendSeq;
    const timer = setTimeout(() => this.#lent(id, null), this.#lendWaitMs);
    timer.unref();
    this.#lends.set(id, { asker: from, askerId: m.id, peer, name, token, timer });
    this.#send(peer, { cp: 1, t: 'lend', id, name, after: m.lend });
    return null;
  }

  /** A peer's answer (or its silence, or its leaving): the asker takes the entry, or the lease. */
  #lent(id: number, entry: string | null): void {
    const l = this.#lends.get(id);
    if (l === undefined) return;
    this.#lends.delete(id);
    clearTimeout(l.timer);
    const held = this.#leases.get(l.name);
    const mine = held !== undefined && held.token === l.token ? held : null;
    if (entry === null) {
      this.#fillers.forget(l.name);
      if (mine !== null) return this.#send(l.asker, { cp: 1, t: 'granted', id: l.askerId, ok: true });
    }
    // Refused, then filled: with the lent entry (the workers refused meanwhile too), or null when the lease was lost.
    this.#send(l.asker, { cp: 1, t: 'granted', id: l.askerId, ok: false });
    if (mine === null) return this.#send(l.asker, { cp: 1, t: 'filled', name: l.name, entry });
    mine.waiters.add(l.asker);
    this.#drop(l.name, mine, entry);
  }

  /** The lease if held and not expired (an expired one is dropped: its waiters fetch themselves). */
  #live(name: string): Held | null {
    const held = this.#leases.get(name);
    if (held === undefined) return null;
    if (held.until > this.#clock()) return held;
    this.#drop(name, held, null);
    return null;
  }

  /** Expired leases nobody asks for again (the block reader's jobs) are dropped, at most once a second. */
  #sweep(): void {
    const now = this.#clock();
    if (now - this.#swept < 1000) return;
    this.#swept = now;
    for (const name of [...this.#leases.keys()]) this.#live(name);
  }

  #drop(name: string, held: Held, entry: string | null): void {
    this.#leases.delete(name);
    for (const w of held.waiters) this.#send(w, { cp: 1, t: 'filled', name, entry });
  }

  #learnHead(height: number, final: boolean): void {
    if (final) this.#final = Math.max(this.#final ?? height, height);
    else this.#head = Math.max(this.#head ?? height, height);
  }

  #remember(set: TouchedSet): void {
    const at = this.#record.findIndex((s) => s.height === set.height);
    if (at >= 0) this.#record.splice(at, 1);
    this.#record.push(set);
    this.#record.sort((a, b) => a.height - b.height);
    if (this.#record.length > RECORD_SETS) this.#record.splice(0, this.#record.length - RECORD_SETS);
  }

  #scrape(asker: number, askerId: number): void {
    const id = ++this.#scrapeSeq;
    const s: Scrape = {
      asker,
      askerId,
      waiting: new Set(this.#peers.keys()),
      texts: new Map(),
      timer: setTimeout(() => this.#finish(id, s), SCRAPE_WAIT_MS),
    };
    s.timer.unref();
    this.#scrapes.set(id, s);
    for (const w of s.waiting) this.#send(w, { cp: 1, t: 'render', id });
    this.#finishIfDone(id, s);
  }

  #finishIfDone(id: number, s: Scrape): void {
    if (s.waiting.size === 0) this.#finish(id, s);
  }

  #finish(id: number, s: Scrape): void {
    if (!this.#scrapes.delete(id)) return;
    clearTimeout(s.timer);
    const docs = [...s.texts].sort(([a], [b]) => a - b).map(([worker, text]) => ({ worker: String(worker), text }));
    this.#send(s.asker, { cp: 1, t: 'scraped', id: s.askerId, text: mergeMetrics(docs) });
  }

  #send(worker: number, m: ToWorker): void {
    this.#peers.get(worker)?.(m);
  }
}
