/**
 * The fleet leader role (src/fleet/leader.ts) over an in-memory lease with the
 * same semantics as Redis's (token, expiry on the shared clock), on fake
 * timers: one leader at a time, takeover after the leader dies within the
 * lease plus one try, step-down when the lease cannot be renewed, release on close.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FleetLeader } from '../../src/fleet/leader.js';
import type { NamedLease } from '../../src/fleet/named-lease.js';

/** One lease store (the Redis server) seen by every contender. */
class MemoryLeases {
  readonly held = new Map<string, { token: string; until: number }>();
  #get(name: string): { token: string; until: number } | undefined {
    const h = this.held.get(name);
    if (h !== undefined && h.until <= Date.now()) {
      this.held.delete(name);
      return undefined;
    }
    return h;
  }
  acquire(name: string, token: string, ttlMs: number): boolean {
    if (this.#get(name) !== undefined) return false;
    this.held.set(name, { token, until: Date.now() + ttlMs });
    return true;
  }
  renew(name: string, token: string, ttlMs: number): boolean {
    const h = this.#get(name);
    if (h?.token !== token) return false;
    h.until = Date.now() + ttlMs;
    return true;
  }
  release(name: string, token: string): void {
    if (this.#get(name)?.token === token) this.held.delete(name);
  }
}

/** A contender's connection to the store: `dead` (never answers again, a killed process) or `down` (answers null). */
function link(store: MemoryLeases): NamedLease & { dead: boolean; down: boolean } {
  const never = new Promise<never>(() => {});
  const l = {
    dead: false,
    down: false,
    acquire: (n: string, t: string, ms: number) =>
      l.dead ? never : Promise.resolve(l.down ? null : store.acquire(n, t, ms)),
    renew: (n: string, t: string, ms: number) =>
      l.dead ? never : Promise.resolve(l.down ? null : store.renew(n, t, ms)),
    release: (n: string, t: string) => (l.dead ? never : Promise.resolve(l.down ? undefined : store.release(n, t))),
  };
  return l;
}

const INTERVAL = 1000;
const opts = { name: 'leader:', ttlMs: 1500, renewMs: 500, tryMs: 250, clock: () => Date.now() };

describe('FleetLeader', () => {
  let store: MemoryLeases;
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
    store = new MemoryLeases();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function contenders(n: number) {
    return Array.from({ length: n }, () => {
      const l = link(store);
      const leader = new FleetLeader({ ...opts, lease: l });
      leader.start();
      return { l, leader };
    });
  }
  const leaders = (cs: ReturnType<typeof contenders>) => cs.filter((c) => c.leader.isLeader());

  it('one of three leads, keeps the role by renewing, and the others follow', async () => {
    const cs = contenders(3);
    const gained = vi.fn();
    for (const c of cs) c.leader.on('gained', gained);
    await vi.advanceTimersByTimeAsync(10);
    expect(leaders(cs)).toHaveLength(1);
    const first = leaders(cs)[0];
    await vi.advanceTimersByTimeAsync(20 * INTERVAL);
    expect(leaders(cs)).toEqual([first]);
    expect(gained).toHaveBeenCalledTimes(1);
  });

  it('a dead leader is replaced within the lease plus one try (under two probe intervals)', async () => {
    const cs = contenders(3);
    await vi.advanceTimersByTimeAsync(INTERVAL + 10);
    const [old] = leaders(cs);
    if (old === undefined) throw new Error('no leader');
    old.l.dead = true;
    const diedAt = Date.now();
    let took: number | null = null;
    while (took === null && Date.now() - diedAt < 5 * INTERVAL) {
      await vi.advanceTimersByTimeAsync(5);
      if (cs.some((c) => c !== old && c.leader.isLeader())) took = Date.now() - diedAt;
    }
    expect(took).not.toBeNull();
    expect(took).toBeLessThanOrEqual(opts.ttlMs + opts.tryMs);
    expect(took).toBeLessThan(2 * INTERVAL);
    // The dead one stopped believing it leads before anyone else took over.
    expect(old.leader.isLeader()).toBe(false);
    expect(leaders(cs)).toHaveLength(1);
  });

  it('never two leaders while contenders die, lose the store and come back', async () => {
    const cs = contenders(3);
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let led = 0;
    for (let step = 0; step < 4000; step++) {
      await vi.advanceTimersByTimeAsync(5);
      expect(leaders(cs).length).toBeLessThanOrEqual(1);
      if (leaders(cs).length === 1) led++;
      if (step % 100 === 0) {
        const c = cs[Math.floor(rnd() * cs.length)];
        if (c !== undefined) c.l.down = !c.l.down;
      }
    }
    // Someone led most of the time (the role is not lost to flapping).
    expect(led).toBeGreaterThan(2000);
    // ...and it did change hands along the way.
    expect(cs.reduce((n, c) => n + c.leader.changes, 0)).toBeGreaterThan(4);
  });

  it('a renewal that finds another holder loses the role at once', async () => {
    const [c] = contenders(1);
    if (c === undefined) throw new Error('no contender');
    const lost = vi.fn();
    c.leader.on('lost', lost);
    await vi.advanceTimersByTimeAsync(10);
    expect(c.leader.isLeader()).toBe(true);
    store.held.set('leader:', { token: 'someone else', until: Date.now() + 60_000 });
    await vi.advanceTimersByTimeAsync(opts.renewMs + 10);
    expect(c.leader.isLeader()).toBe(false);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(c.leader.changes).toBe(2);
  });

  it('steps down when the lease cannot be renewed, no later than it expires for the others', async () => {
    const [c, d] = contenders(2);
    if (c === undefined || d === undefined) throw new Error('no contender');
    await vi.advanceTimersByTimeAsync(10);
    const leader = c.leader.isLeader() ? c : d;
    const other = leader === c ? d : c;
    const renewedBy = Date.now();
    leader.l.down = true;
    await vi.advanceTimersByTimeAsync(opts.ttlMs);
    expect(leader.leader.isLeader()).toBe(false);
    expect(Date.now() - renewedBy).toBeLessThanOrEqual(opts.ttlMs + 10);
    await vi.advanceTimersByTimeAsync(opts.tryMs + 10);
    expect(other.leader.isLeader()).toBe(true);
  });

  it('a closing leader releases the lease: a follower takes it at its next try', async () => {
    const cs = contenders(2);
    await vi.advanceTimersByTimeAsync(10);
    const [lead] = leaders(cs);
    if (lead === undefined) throw new Error('no leader');
    await lead.leader.close();
    expect(lead.leader.isLeader()).toBe(false);
    await vi.advanceTimersByTimeAsync(opts.tryMs + 10);
    expect(leaders(cs)).toHaveLength(1);
    expect(leaders(cs)[0]).not.toBe(lead);
  });
});
