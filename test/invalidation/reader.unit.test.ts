/**
 * The block reader's reorg rounds, with a scripted reading (no I/O): a block
 * replaced again while it is read again is read again, until the window
 * shows the hash it is known by.
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { TouchedSet } from '../../src/chain/touched.js';
import { TouchedSets } from '../../src/chain/touched.js';
import { TagClock } from '../../src/invalidation/clock.js';
import { registerInvalidationMetrics } from '../../src/invalidation/metrics.js';
import { BlockReader } from '../../src/invalidation/reader.js';
import type { RecentBlocks } from '../../src/invalidation/reorg-window.js';

const N = 100;
const whole = (height: number, blockHash: string): TouchedSet => ({
  height,
  blockHash,
  addresses: [],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  left: [],
  complete: true,
});
const none = { hashes: [], addresses: [], contracts: [] };

describe('BlockReader', () => {
  it('reads a block again while the window shows yet another hash for it', async () => {
    // What the upstream shows at each read of N, and the windows read one after the other.
    const readsOfN: (string | null)[] = ['w', null, 'y'];
    const windows: Record<number, string>[] = [{ [N]: 'w' }, { [N + 1]: 'a', [N]: 'x' }, { [N]: 'y' }, { [N]: 'y' }];
    let windowAt = 0;
    const reading = {
      read: async (height: number) => {
        await Promise.resolve();
        const hash = height === N ? readsOfN.shift() : 'a';
        if (hash === null || hash === undefined) throw new Error('tx/list lags');
        return { set: whole(height, hash), pending: none };
      },
      recent: async (): Promise<RecentBlocks> => {
        await Promise.resolve();
        const w = windows[Math.min(windowAt++, windows.length - 1)]!;
        return { hashes: new Map(Object.entries(w).map(([h, v]) => [Number(h), v])), lowest: N, cut: false };
      },
      pending: () => Promise.reject(new Error('no poll')),
      heard: () => undefined,
      blockPublished: () => undefined,
      heardPool: () => undefined,
    };
    const touched = new TouchedSets();
    const clock = new TagClock({ maxBytes: 1 << 20, clock: () => 0 });
    touched.subscribe(clock);
    const heads = new EventEmitter() as EventEmitter & { bestHead(): number | null; finalHeight(): number | null };
    let head = N;
    heads.bestHead = () => head;
    heads.finalHeight = () => N - 10;
    const metrics = registerInvalidationMetrics(new Registry(), () => ({ tags: 0, bytes: 0 }));
    const reader = new BlockReader({
      reading,
      touched,
      clock,
      heads,
      lead: null,
      share: null,
      timeoutMs: 1000,
      pendingPollMs: 0,
      duty: null,
      metrics,
      logger: pino({ level: 'silent' }),
    });
    heads.emit('head', N);
    await reader.idle();
    expect(clock.hashOf(N)).toBe('w');
    head = N + 1;
    heads.emit('head', N + 1);
    await reader.idle();
    // x seen in the window: read again, which failed (known by x); the next window shows y: read again.
    expect(readsOfN).toEqual([]);
    expect(clock.hashOf(N)).toBe('y');
    expect(metrics.snapshot().guarded.reorg).toBe(2);
    reader.close();
  });
});
