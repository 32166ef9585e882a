/**
 * The cluster primary as its workers' fleet (src/cluster/hub.ts): bus relay,
 * named leases with the fill handed to refused workers, a leaving worker's
 * leases, the record of touched sets, a scrape merged from every worker, and a
 * miss answered from the memory of the worker that filled the key.
 */
import { describe, expect, it, vi } from 'vitest';
import { Hub } from '../../src/cluster/hub.js';
import type { ToWorker } from '../../src/cluster/protocol.js';
import type { TouchedSet } from '../../src/chain/touched.js';
import { fakeClock } from '../helpers/clock.js';

/** The lend wait (WORKERS_LEND_WAIT_MS) these hubs are made with. */
const LEND_WAIT_MS = 50;

function rig(workers = 3) {
  const clock = fakeClock();
  const hub = new Hub(LEND_WAIT_MS, clock.now);
  const inbox = new Map<number, ToWorker[]>();
  for (let w = 1; w <= workers; w++) {
    const box: ToWorker[] = [];
    inbox.set(w, box);
    hub.join(w, (m) => box.push(m));
  }
  const of = (w: number): ToWorker[] => inbox.get(w)!;
  const acquire = (w: number, name: string, token: string, wait = true, ttlMs = 1000): boolean => {
    hub.receive(w, { cp: 1, t: 'acquire', id: 7, name, token, ttlMs, wait, lend: null });
    const last = of(w).at(-1);
    if (last?.t !== 'granted') throw new Error('no answer');
    return last.ok;
  };
  /** A flight's miss that takes a peer's newer entry; the messages it was answered with so far. */
  const miss = (w: number, name: string, token: string, id: number, lend = -1): ToWorker[] => {
    const before = of(w).length;
    hub.receive(w, { cp: 1, t: 'acquire', id, name, token, ttlMs: 1000, wait: true, lend });
    return of(w).slice(before);
  };
  /** The `lend` requests a worker was sent. */
  const lends = (w: number) => of(w).flatMap((m) => (m.t === 'lend' ? [m] : []));
  return { clock, hub, of, acquire, miss, lends };
}

const set = (height: number): TouchedSet => ({
  height,
  blockHash: `h${height}`,
  addresses: [],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete: true,
});

describe('cluster hub', () => {
  it('relays a bus message to every other worker, and tells a joining worker the heads', () => {
    const { hub, of } = rig();
    hub.receive(1, { cp: 1, t: 'bus', m: { t: 'head', a: [10, false] } });
    hub.receive(2, { cp: 1, t: 'bus', m: { t: 'head', a: [8, true] } });
    expect(of(1)).toEqual([{ cp: 1, t: 'bus', m: { t: 'head', a: [8, true] } }]);
    expect(of(3)).toHaveLength(2);
    const late: ToWorker[] = [];
    hub.join(4, (m) => late.push(m));
    expect(late.map((m) => (m.t === 'bus' && m.m.t === 'head' ? m.m.a : null))).toEqual([
      [10, false],
      [8, true],
    ]);
  });

  it("relays a kind the table marks echo ('filled') to its sender too, as the Redis bus delivers it", () => {
    const { hub, of } = rig(2);
    const m: ToWorker = { cp: 1, t: 'bus', m: { t: 'filled', a: ['k'] } };
    hub.receive(1, m);
    expect([of(1), of(2)]).toEqual([[m], [m]]);
  });

  it('grants a lease to one token until it expires; only the holder renews it', () => {
    const { clock, hub, of, acquire } = rig();
    expect(acquire(1, 'flight:k', 'a')).toBe(true);
    expect(acquire(2, 'flight:k', 'b')).toBe(false);
    hub.receive(2, { cp: 1, t: 'renew', id: 8, name: 'flight:k', token: 'b', ttlMs: 1000 });
    expect(of(2).at(-1)).toEqual({ cp: 1, t: 'granted', id: 8, ok: false });
    clock.advance(900);
    hub.receive(1, { cp: 1, t: 'renew', id: 9, name: 'flight:k', token: 'a', ttlMs: 1000 });
    expect(of(1).at(-1)).toEqual({ cp: 1, t: 'granted', id: 9, ok: true });
    clock.advance(900);
    expect(acquire(3, 'flight:k', 'c')).toBe(false);
    clock.advance(101);
    expect(acquire(3, 'flight:k', 'c')).toBe(true);
    expect(hub.leases).toBe(1);
  });

  it("hands the holder's entry to the workers refused while it held the lease, and to no one else", () => {
    const { hub, of, acquire } = rig();
    acquire(1, 'flight:k', 'a');
    acquire(2, 'flight:k', 'b', true);
    acquire(3, 'flight:k', 'c', false);
    hub.receive(1, { cp: 1, t: 'release', name: 'flight:k', token: 'x', entry: 'WRONG' });
    expect(of(2).filter((m) => m.t === 'filled')).toEqual([]);
    hub.receive(1, { cp: 1, t: 'release', name: 'flight:k', token: 'a', entry: 'ENTRY' });
    expect(of(2).filter((m) => m.t === 'filled')).toEqual([{ cp: 1, t: 'filled', name: 'flight:k', entry: 'ENTRY' }]);
    expect(of(3).filter((m) => m.t === 'filled')).toEqual([]);
    expect(of(1).filter((m) => m.t === 'filled')).toEqual([]);
    expect(acquire(3, 'flight:k', 'c')).toBe(true);
  });

  it("drops a leaving worker's leases at once: its waiters fetch themselves", () => {
    const { hub, of, acquire } = rig();
    acquire(1, 'flight:k', 'a');
    acquire(2, 'flight:k', 'b');
    hub.leave(1);
    expect(of(2).filter((m) => m.t === 'filled')).toEqual([{ cp: 1, t: 'filled', name: 'flight:k', entry: null }]);
    expect(acquire(3, 'flight:k', 'c')).toBe(true);
  });

  it('answers a miss with the entry of the worker that filled the key: refused, then filled; no lease', () => {
    const { hub, of, acquire, miss, lends } = rig();
    acquire(1, 'flight:k', 'a');
    hub.receive(1, { cp: 1, t: 'release', name: 'flight:k', token: 'a', entry: 'ONE' });
    // Worker 2 misses: nothing answers it until worker 1 lent (or not) its entry.
    expect(miss(2, 'flight:k', 'b', 11, 5)).toEqual([]);
    expect(lends(1)).toEqual([{ cp: 1, t: 'lend', id: expect.any(Number), name: 'flight:k', after: 5 }]);
    // A third worker missing meanwhile waits for the same fill.
    expect(miss(3, 'flight:k', 'c', 12)).toEqual([{ cp: 1, t: 'granted', id: 12, ok: false }]);
    hub.receive(2, { cp: 1, t: 'lent', id: lends(1)[0]!.id, entry: 'FORGED' });
    expect(of(2)).toEqual([]);
    hub.receive(1, { cp: 1, t: 'lent', id: lends(1)[0]!.id, entry: 'LENT' });
    expect(of(2)).toEqual([
      { cp: 1, t: 'granted', id: 11, ok: false },
      { cp: 1, t: 'filled', name: 'flight:k', entry: 'LENT' },
    ]);
    expect(of(3).at(-1)).toEqual({ cp: 1, t: 'filled', name: 'flight:k', entry: 'LENT' });
    expect(hub.leases).toBe(0);
    // The filler itself, or a named lease (no `lend`), is never answered so.
    expect(miss(1, 'flight:k', 'a2', 13)).toEqual([{ cp: 1, t: 'granted', id: 13, ok: true }]);
    expect(lends(1)).toHaveLength(1);
  });

  it('grants the lease when the peer has nothing newer, or is silent past the bound, or leaves', () => {
    vi.useFakeTimers();
    try {
      const { hub, of, acquire, miss, lends } = rig();
      acquire(1, 'flight:k', 'a');
      hub.receive(1, { cp: 1, t: 'release', name: 'flight:k', token: 'a', entry: 'ONE' });
      // Nothing newer: granted, and worker 1 is no longer asked for the key.
      miss(2, 'flight:k', 'b', 21);
      hub.receive(1, { cp: 1, t: 'lent', id: lends(1)[0]!.id, entry: null });
      expect(of(2).at(-1)).toEqual({ cp: 1, t: 'granted', id: 21, ok: true });
      hub.receive(2, { cp: 1, t: 'release', name: 'flight:k', token: 'b', entry: 'TWO' });
      // Silent: granted once the bound passed, not before.
      miss(3, 'flight:k', 'c', 22);
      expect(lends(2)).toHaveLength(1);
      vi.advanceTimersByTime(LEND_WAIT_MS - 1);
      expect(of(3).filter((m) => m.t === 'granted')).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(of(3).at(-1)).toEqual({ cp: 1, t: 'granted', id: 22, ok: true });
      hub.receive(3, { cp: 1, t: 'release', name: 'flight:k', token: 'c', entry: 'THREE' });
      // Gone while asked: granted at once; its number's replacement is not asked.
      miss(1, 'flight:k', 'd', 23);
      expect(lends(3)).toHaveLength(1);
      hub.leave(3);
      expect(of(1).at(-1)).toEqual({ cp: 1, t: 'granted', id: 23, ok: true });
      hub.receive(1, { cp: 1, t: 'release', name: 'flight:k', token: 'd', entry: null });
      hub.join(3, () => {});
      expect(miss(2, 'flight:k', 'e', 24)).toEqual([{ cp: 1, t: 'granted', id: 24, ok: true }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the last 64 touched sets in height order for workers that join', () => {
    const { hub, of } = rig(1);
    for (let h = 100; h > 0; h--) hub.receive(1, { cp: 1, t: 'record', id: 0, set: set(h) });
    hub.receive(1, { cp: 1, t: 'record', id: 5, set: null });
    const last = of(1).at(-1);
    if (last?.t !== 'record') throw new Error('no record');
    expect(last.id).toBe(5);
    expect(last.sets.map((s) => s.height)).toEqual(Array.from({ length: 64 }, (_, i) => 37 + i));
  });

  it('answers a scrape once every worker rendered, or once a silent one left', () => {
    const { hub, of } = rig(3);
    hub.receive(2, { cp: 1, t: 'scrape', id: 41 });
    const renders = [1, 2, 3].map((w) => of(w).find((m) => m.t === 'render'));
    const id = renders[0]?.t === 'render' ? renders[0].id : -1;
    expect(renders.every((m) => m?.t === 'render' && m.id === id)).toBe(true);
    hub.receive(1, { cp: 1, t: 'rendered', id, text: 'a_total 1\n' });
    hub.receive(2, { cp: 1, t: 'rendered', id, text: 'a_total 2\n' });
    expect(of(2).some((m) => m.t === 'scraped')).toBe(false);
    hub.leave(3);
    expect(of(2).filter((m) => m.t === 'scraped')).toEqual([
      { cp: 1, t: 'scraped', id: 41, text: 'a_total{worker="1"} 1\na_total{worker="2"} 2\n' },
    ]);
    hub.close();
  });
});
