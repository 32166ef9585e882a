/**
 * What a reader learns from pool news it did not read itself: which
 * transactions it need not look up again, and what it carries into the next
 * block set it reads (another reader's news since the last block set).
 */
import { describe, expect, it } from 'vitest';
import { HeardPool } from '../../src/invalidation/heard-pool.js';
import { blockNaming } from '../refresh/kit.js';

const news = (hashes: string[], addresses: string[], contracts: string[] = []) => ({ hashes, addresses, contracts });
const block = (addresses: string[]) => ({ ...blockNaming(10, addresses), left: [] });

describe('HeardPool', () => {
  it("carries another reader's news into the next block set, until a block set is published", () => {
    const h = new HeardPool();
    h.add(news(['t1'], ['a1', 'a2'], ['c1']), null);
    expect(h.has('t1')).toBe(true);
    expect([...h.carried().addresses]).toEqual(['a1', 'a2']);
    expect([...h.carried().contracts]).toEqual(['c1']);
    h.blockPublished(block(['x']));
    expect(h.carried().addresses.size).toBe(0);
    // Still known: its recipient is not read again.
    expect(h.has('t1')).toBe(true);
  });

  it('does not carry its own news, nor what the last block set named', () => {
    const h = new HeardPool();
    h.add(news(['t1'], ['a1']), new Map([['t1', []]]));
    expect(h.has('t1')).toBe(true);
    expect(h.carried().addresses.size).toBe(0);
    // The pool news a block read publishes after its set: named by that set already.
    h.blockPublished(block(['a2']));
    h.add(news(['t2'], ['a2', 'a3']), null);
    expect([...h.carried().addresses]).toEqual(['a3']);
  });

  it("knows a leader's list of the pool without carrying anything, and keeps the newest hashes only", () => {
    const h = new HeardPool();
    h.known(['p1', 'p2']);
    expect(h.has('p1') && h.has('p2')).toBe(true);
    expect(h.carried().addresses.size).toBe(0);
    h.known(Array.from({ length: 4096 }, (_, i) => `n${i}`));
    expect(h.has('p1')).toBe(false);
    expect(h.has('n4095')).toBe(true);
  });

  it('forgets a transaction that left the pool, so its return (a reorg) is news again', () => {
    const h = new HeardPool();
    h.known(['0xAB', '0xcd']);
    expect(h.has('0xab')).toBe(true);
    // Mined: the block's set names it among those that left.
    h.blockPublished({ ...blockNaming(11, []), left: ['0xab'] });
    expect(h.has('0xAB')).toBe(false);
    expect(h.has('0xcd')).toBe(true);
    h.forget(['0xCD']);
    expect(h.has('0xcd')).toBe(false);
    // A leader's list is the pool now: what it does not hold has left.
    h.known(['0x1', '0x2']);
    h.pool(['0x2', '0x3']);
    expect([h.has('0x1'), h.has('0x2'), h.has('0x3')]).toEqual([false, true, true]);
    // A block that does not say which left (an incomplete one) may have taken any.
    h.blockPublished({ ...blockNaming(12, []), complete: false });
    expect(h.has('0x2') || h.has('0x3')).toBe(false);
  });
});
