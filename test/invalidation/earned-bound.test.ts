/**
 * The earned safety bound: each refetch of a transaction list at its key's
 * bound that finds the same content doubles that key's bound, up to
 * INVALIDATION_MAX_AGE_GROWTH times the endpoint's; a refetch caused by a block
 * naming the key keeps it. Balances keep their bound, and a balance changed
 * though no block named the address (an internal transfer) is counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  blockNames,
  internalCreditsAt,
  normalAddress,
  startSimulator,
  type SimulatorHandle,
} from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, invalidationStatus, PRECISE, SEED } from './kit.js';

let sim: SimulatorHandle | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  proxy = sim = undefined;
});

/** A hot account of the simulator: blocks name it every few dozen heights. */
const ADDRESS = normalAddress(SEED, 0);
const PATH = `/tx/listByAddress?address=${ADDRESS}&page=1&page_size=20`;

describe('the earned safety bound', () => {
  it('doubles on each unchanged refetch at the bound, up to the growth cap', async () => {
    let offset = 0;
    sim = await startSimulator({ seed: SEED, blockIntervalMs: 0 });
    proxy = await startReplica(
      [sim.url],
      {
        upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
        invalidation: { ...PRECISE, maxAgeMs: 60_000, maxAgeGrowth: 4 },
      },
      () => Date.now() + offset,
    );
    await covered(proxy, sim.chain.head());
    const bound = async (): Promise<{ ms: number; cache: string }> => {
      const r = await get(proxy!.url, PATH);
      expect(r.status).toBe(200);
      const e = proxy!.memory.peek(PATH.slice(1))?.entry;
      if (e === undefined) throw new Error('not in memory');
      return { ms: e.freshUntil - e.createdAt, cache: String(r.headers['x-cache']) };
    };
    expect((await bound()).ms).toBe(60_000);
    // Within the bound: a hit, nothing earned.
    offset += 30_000;
    expect(await bound()).toEqual({ ms: 60_000, cache: 'HIT' });
    const seen: number[] = [];
    for (const step of [31_000, 121_000, 241_000, 241_000]) {
      offset += step;
      await get(proxy.url, PATH); // expired at the bound: refetched (served stale while it revalidates, or fetched)
      await waitForRefetch(() => proxy!.memory.peek(PATH.slice(1))?.entry, Date.now() + offset - 1000);
      seen.push((await bound()).ms);
    }
    expect(seen).toEqual([120_000, 240_000, 240_000, 240_000]);

    // Expired, and a block named the address meanwhile: the change is a seen one, so the key keeps its bound.
    let h = sim.chain.head() + 1;
    while (!blockNames(SEED, h).has(ADDRESS))
      if (++h > sim.chain.head() + 500) throw new Error('no block names the address');
    sim.chain.advance(h - sim.chain.head());
    await covered(proxy, h);
    offset += 241_000;
    const before = proxy.memory.peek(PATH.slice(1))!.entry.etag;
    await get(proxy.url, PATH);
    await waitForRefetch(() => proxy!.memory.peek(PATH.slice(1))?.entry, Date.now() + offset - 1000);
    expect(proxy.memory.peek(PATH.slice(1))!.entry.etag).not.toBe(before);
    expect((await bound()).ms).toBe(240_000);
    expect((await invalidationStatus(proxy.url))['unnamedChanges']).toBe(0);
  });

  it('keeps a balance at its bound, unchanged or not, and counts a change no block named', async () => {
    let offset = 0;
    sim = await startSimulator({ seed: SEED, blockIntervalMs: 0, internalTransfers: true });
    // The next block paying an internal transfer to an address no block names meanwhile.
    let h = sim.chain.head() + 1;
    let paid: string | undefined;
    for (; paid === undefined; h++) {
      if (h > sim.chain.head() + 500) throw new Error('no internal transfer');
      paid = [...internalCreditsAt(SEED, h)].find((a) => !namedUpTo(sim!.chain.head() + 1, h, a));
    }
    h--;
    const path = `/address/info?address=${paid}`;
    proxy = await startReplica(
      [sim.url],
      {
        upstream: { probeIntervalMs: 50, headMarginBlocks: 1000 },
        invalidation: { ...PRECISE, maxAgeMs: 60_000, maxAgeGrowth: 4 },
      },
      () => Date.now() + offset,
    );
    await covered(proxy, sim.chain.head());
    const entry = () => proxy!.memory.peek(path.slice(1))?.entry;
    const first = await get(proxy.url, path);
    offset += 61_000;
    await get(proxy.url, path);
    await waitForRefetch(entry, Date.now() + offset - 1000);
    expect(entry()!.etag).toBe(first.headers['etag']);
    expect(entry()!.freshUntil - entry()!.createdAt).toBe(60_000);

    sim.chain.advance(h - sim.chain.head());
    await covered(proxy, h);
    // No block named it: still a hit, with the old balance, until its bound.
    const kept = await get(proxy.url, path);
    expect([kept.headers['x-cache'], kept.text]).toEqual(['HIT', first.text]);
    offset += 61_000;
    await get(proxy.url, path);
    await waitForRefetch(entry, Date.now() + offset - 1000);
    expect(entry()!.etag).not.toBe(first.headers['etag']);
    expect(entry()!.freshUntil - entry()!.createdAt).toBe(60_000);
    expect((await invalidationStatus(proxy.url))['unnamedChanges']).toBe(1);
  });
});

/** Some block in [from, to] names `address`. */
function namedUpTo(from: number, to: number, address: string): boolean {
  for (let h = from; h <= to; h++) if (blockNames(SEED, h).has(address)) return true;
  return false;
}

/** Waits until the key's entry was created after `since` (a refetch stored it). */
async function waitForRefetch(entry: () => { createdAt: number } | undefined, since: number): Promise<void> {
  await waitFor(() => (entry()?.createdAt ?? 0) >= since, 5000, 'the refetch stored');
}
