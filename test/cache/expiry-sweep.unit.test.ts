/**
 * Expired entries are dropped as they are met, not only by the periodic
 * purge: an insert drops the expired entries at the least-recently-used end
 * (where eviction would meet them next), without any read of them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/cache/memory-store.js';
import { createEntry } from '../../src/cache/entry.js';

const T0 = 1_700_000_000_000;

function negative(key: string, now: number, ttlMs: number) {
  return createEntry({
    key,
    status: 404,
    body: Buffer.from('{"code":404,"msg":"not found","data":null}'),
    createdAt: now,
    ttlMs,
    swrMs: 0,
    sieMs: 0,
    head: null,
    headDependent: false,
    finalAt: null,
    negative: true,
    stamps: [],
  });
}

describe('expiry as entries are met', () => {
  // Fake timers: the LRU refreshes its cached time on a timer, and the default clock is Date.now.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a flood of short-lived entries does not pile up between purges', () => {
    const c = { now: T0 };
    const store = new MemoryStore({ maxBytes: 1 << 30, clock: () => c.now, purgeIntervalMs: 0 });
    for (let i = 0; i < 1000; i++) {
      store.put(negative(`k${i}`, c.now, 1000));
      c.now += 10; // 100 inserts per second, each entry lives 1 s
      // Let the LRU's own clock cache catch up, as it does in a running process.
      if (i % 50 === 49) vi.advanceTimersByTime(3);
    }
    // Only the entries of the last second are alive; the rest were dropped on the way, unread.
    expect(store.entries).toBeLessThanOrEqual(100 + 4);
    expect(store.entries).toBeGreaterThanOrEqual(99);
  });

  it('on the default clock too (the LRU itself then treats those entries as stale)', () => {
    const store = new MemoryStore({ maxBytes: 1 << 30, purgeIntervalMs: 0 });
    const first = Date.now();
    for (let i = 0; i < 200; i++) store.put(negative(`old${i}`, first, 20));
    vi.advanceTimersByTime(26); // every old entry past its expiry
    for (let i = 0; i < 200; i++) store.put(negative(`new${i}`, Date.now(), 60_000));
    expect(store.entries).toBe(200);
  });

  it('an expired entry at the LRU end goes on the next insert', () => {
    const c = { now: T0 };
    const store = new MemoryStore({ maxBytes: 1 << 30, clock: () => c.now, purgeIntervalMs: 0 });
    store.put(negative('old', c.now, 1000));
    const bytesOne = store.bytes;
    c.now += 1001;
    store.put(negative('new', c.now, 1000));
    expect(store.entries).toBe(1);
    expect(store.bytes).toBe(bytesOne);
  });
});
