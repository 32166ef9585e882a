/**
 * Two workers' fleets (src/cluster/worker-fleet.ts) joined through the
 * primary's hub over in-process channels: a cold miss led by one worker is
 * handed to the other with the release; a leader that stored nothing sends
 * its follower to fetch; a later miss on the other worker takes the filler's
 * fresh entry; bus messages reach the other worker only.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Hub } from '../../src/cluster/hub.js';
import { connectWorkerFleet, type Channel, type WorkerFleet } from '../../src/cluster/worker-fleet.js';
import type { CacheEntry } from '../../src/cache/types.js';
import type { TouchedSet } from '../../src/chain/touched.js';
import { makeEntry } from '../redis/fixtures.js';

/** `lendLater`: the workers are built without `fresh` and given it by `lendFrom` (as the composition root does). */
function workers(n: number, lendLater = false) {
  const hub = new Hub(50);
  const memories: Array<Map<string, CacheEntry>> = [];
  const fleets: WorkerFleet[] = [];
  const lenders: Array<() => void> = [];
  /** Keys whose memory entries are no longer fresh. */
  const stale = new Set<string>();
  for (let w = 1; w <= n; w++) {
    const wire = new EventEmitter();
    // Messages arrive later and in order, as on an IPC channel.
    const channel: Channel = {
      connected: true,
      send: (m) => queueMicrotask(() => hub.receive(w, m)),
      on: (e, fn) => wire.on(e, fn),
    };
    hub.join(w, (m) => queueMicrotask(() => wire.emit('message', m)));
    const memory = new Map<string, CacheEntry>();
    memories.push(memory);
    const fresh = (k: string) => (stale.has(k) ? undefined : memory.get(k));
    const fleet = connectWorkerFleet({
      tracker: null,
      peek: (k) => memory.get(k),
      ...(lendLater ? {} : { fresh }),
      render: async () => `m_total ${w}\n`,
      leaseMs: 5000,
      channel,
    });
    fleets.push(fleet);
    lenders.push(() => fleet.lendFrom(fresh));
  }
  return { hub, memories, fleets, stale, lend: () => lenders.forEach((l) => l()) };
}

describe('workers of one machine, without Redis', () => {
  it("a cold miss is fetched by one worker; the other gets the leader's entry", async () => {
    const { memories, fleets } = workers(2);
    const [a, b] = fleets.map((f) => f.coordinator);
    expect(await a!.acquire('k')).toBe(true);
    expect(await b!.acquire('k')).toBe(false);
    const waiting = b!.waitForFill('k');
    const entry = makeEntry('k', { createdAt: Date.now() + 1 });
    memories[0]!.set('k', entry);
    await a!.release('k');
    expect(await waiting).toEqual(entry);
    // Free again: the next miss leads (worker 2 keeps the fill; worker 1 has nothing newer).
    memories[1]!.set('k', entry);
    expect(await b!.acquire('k')).toBe(true);
  });

  it('a fill released before the follower waits is not lost', async () => {
    const { memories, fleets } = workers(2);
    const [a, b] = fleets.map((f) => f.coordinator);
    await a!.acquire('k');
    expect(await b!.acquire('k')).toBe(false);
    memories[0]!.set('k', makeEntry('k', { createdAt: Date.now() + 1 }));
    await a!.release('k');
    await new Promise((r) => setImmediate(r));
    expect((await b!.waitForFill('k'))?.key).toBe('k');
  });

  it('a leader that stored nothing new (an older entry, an error) sends the follower to fetch itself', async () => {
    const { memories, fleets } = workers(2);
    const [a, b] = fleets.map((f) => f.coordinator);
    await a!.acquire('k');
    await b!.acquire('k');
    memories[0]!.set('k', makeEntry('k', { createdAt: Date.now() - 60_000 }));
    const waiting = b!.waitForFill('k');
    await a!.release('k');
    expect(await waiting).toBeUndefined();
  });

  it("a later miss on another worker gets the filler's fresh entry, unless none newer than its own", async () => {
    const { memories, fleets, stale } = workers(2);
    const [a, b] = fleets.map((f) => f.coordinator);
    expect(await a!.acquire('k')).toBe(true);
    const entry = makeEntry('k', { createdAt: Date.now() + 1 });
    memories[0]!.set('k', entry);
    await a!.release('k');
    // Nobody holds the lease: the miss is refused and filled from worker 1's memory.
    expect(await b!.acquire('k')).toBe(false);
    expect(await b!.waitForFill('k')).toEqual(entry);
    // Worker 2 holds the same entry now (a refresh ahead of expiry): worker 1's is not newer, worker 2 leads.
    memories[1]!.set('k', entry);
    expect(await b!.acquire('k')).toBe(true);
    await b!.release('k');
    // A filler whose entry is no longer fresh lends nothing: the asker leads.
    expect(await a!.acquire('j')).toBe(true);
    memories[0]!.set('j', makeEntry('j', { createdAt: Date.now() + 1 }));
    await a!.release('j');
    stale.add('j');
    expect(await b!.acquire('j')).toBe(true);
  });

  it('a worker lends nothing until given what to lend (lendFrom), then its fresh entries', async () => {
    const { memories, fleets, lend } = workers(2, true);
    const [a, b] = fleets.map((f) => f.coordinator);
    /** Worker 1 fills `key`; then worker 2's miss of it: false when worker 1 lent its entry. */
    const missAfterFill = async (key: string): Promise<boolean> => {
      expect(await a!.acquire(key)).toBe(true);
      memories[0]!.set(key, makeEntry(key, { createdAt: Date.now() + 1 }));
      await a!.release(key);
      return b!.acquire(key);
    };
    expect(await missAfterFill('k')).toBe(true);
    lend();
    expect(await missAfterFill('j')).toBe(false);
    expect((await b!.waitForFill('j'))?.key).toBe('j');
  });

  it('bus messages reach the other workers, not the sender; a scrape merges every worker', async () => {
    const { fleets } = workers(3);
    const heard: number[][] = [[], [], []];
    fleets.forEach((f, i) => f.link.bus.on('touched', (s) => heard[i]!.push(s.height)));
    const set: TouchedSet = {
      height: 5,
      blockHash: 'h',
      addresses: ['a'],
      contracts: [],
      deployed: [],
      day: null,
      tokens: [],
      complete: true,
    };
    await fleets[1]!.link.bus.publish('touched', set, { hashes: [], addresses: [], contracts: [] });
    await fleets[1]!.link.record.add(set);
    expect(await fleets[2]!.link.record.read()).toEqual([set]);
    expect(heard).toEqual([[5], [], [5]]);
    expect(await fleets[0]!.scrape()).toBe('m_total{worker="1"} 1\nm_total{worker="2"} 2\nm_total{worker="3"} 3\n');
  });

  it('serves a named lease (a leader role): one token holds it, renews it, and frees it for the next', async () => {
    const { fleets } = workers(2);
    const [a, b] = fleets.map((f) => f.named);
    expect(await a!.acquire('leader', 'ta', 5000)).toBe(true);
    expect(await b!.acquire('leader', 'tb', 5000)).toBe(false);
    expect(await a!.renew('leader', 'ta', 5000)).toBe(true);
    expect(await b!.renew('leader', 'tb', 5000)).toBe(false);
    await b!.release('leader', 'tb');
    expect(await b!.acquire('leader', 'tb', 5000)).toBe(false);
    await a!.release('leader', 'ta');
    expect(await b!.acquire('leader', 'tb', 5000)).toBe(true);
  });

  it("the leader's heads and pool polls reach the other workers with their arguments, as any bus kind", async () => {
    const { fleets } = workers(3);
    const heard: unknown[][] = [[], [], []];
    fleets.forEach((f, i) => {
      f.duty.bus.on('heads', (lease, heads) => heard[i]!.push(['heads', lease, heads]));
      f.duty.bus.on('pool', (lease, state) => heard[i]!.push(['pool', lease, state]));
    });
    const heads = [{ id: 'u', head: 12, ok: true, ageMs: 3 }];
    const pool = { known: true as const, stale: false, pending: { hashes: ['0x1'], addresses: [], contracts: [] } };
    await fleets[0]!.duty.bus.publish('heads', fleets[0]!.duty.name, heads);
    await fleets[0]!.duty.bus.publish('pool', fleets[0]!.duty.name, pool);
    await new Promise((r) => setImmediate(r));
    const want = [
      ['heads', 'leader:workers', heads],
      ['pool', 'leader:workers', pool],
    ];
    expect(heard).toEqual([[], want, want]);
    expect(fleets[1]!.duty.lease).toBe(fleets[1]!.named);
  });

  it("the leader's refreshed entries reach the other workers as sent", async () => {
    const { fleets } = workers(3);
    const heard: unknown[][] = [[], [], []];
    fleets.forEach((f, i) => f.duty.bus.on('entries', (lease, entries) => heard[i]!.push([lease, entries])));
    await fleets[2]!.duty.bus.publish('entries', fleets[2]!.duty.name, ['ZW50cnk=']);
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([[['leader:workers', ['ZW50cnk=']]], [['leader:workers', ['ZW50cnk=']]], []]);
  });
});
