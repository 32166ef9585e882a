/**
 * The block reader believes a block's transactions only when its pages agree
 * with its record: an upstream answering the newest block's `tx/list` empty
 * while its `block/detail` counts a transaction is caught; another upstream is
 * asked, and when none agrees the block falls back to the head rule (counted).
 * Blocks 4842004.. carry ATP transfers, so `token/tx/list?token=ATP` changes
 * with each of them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, truth } from './kit.js';
import { startLiar, type Liar } from './liar.js';

/** The block after it transfers ATP (height mod 8 = 4, ⌊height/8⌋ mod 6 = 0). */
const START = 4_842_003;
const ATP = '/token/tx/list?token=ATP';

let sims: SimulatorHandle[] = [];
let liar: Liar | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await liar?.close();
  for (const s of sims) await s.close();
  sims = [];
  liar = undefined;
  proxy = undefined;
});

const guarded = async (url: string): Promise<Record<string, number>> =>
  (await invalidationStatus(url))['guarded'] as Record<string, number>;

describe('cross-checked blocks', () => {
  it(
    'an empty list for a block that counts transactions, on one of three upstreams: ' +
      'another upstream is asked and the block is read whole',
    async () => {
      const startTime = Date.now();
      sims = await Promise.all(
        [0, 1, 2].map(() => startSimulator({ seed: 1, blockIntervalMs: 0, startTime, startHeight: START })),
      );
      const [a, b, c] = sims as [SimulatorHandle, SimulatorHandle, SimulatorHandle];
      liar = await startLiar(c.url);
      const l = liar;
      // Timeouts longer than the hold and no hedge: the held read is answered by the liar, neither late nor around it.
      const upstream = {
        probeIntervalMs: 50,
        headMarginBlocks: 100,
        quorum: 2,
        hedgeAfterMs: 0,
        attemptTimeoutMs: 20_000,
        totalDeadlineMs: 20_000,
      };
      proxy = await startReplica([a.url, b.url, l.url], {
        upstream,
        invalidation: { ...PRECISE, readTimeoutMs: 20_000 },
      });
      const p = proxy;
      await covered(p, START);
      await get(p.url, ATP);
      expect((await get(p.url, ATP)).cache).toBe('HIT');

      // The liar has the block first: the reader's tx/list read goes to it and is held until the others have the block
      // too.
      l.emptyBlockLists(true);
      l.hold();
      c.chain.advance(1);
      await l.until(() => l.held() > 0, "the reader's tx/list read at the liar");
      a.chain.advance(1);
      b.chain.advance(1);
      await waitFor(
        () => p.pool.status().every((u) => (u.head ?? 0) >= START + 1),
        5000,
        'every upstream at the new block',
      );
      l.release();
      await covered(p, START + 1);

      const r = await get(p.url, ATP);
      expect(r.cache).not.toBe('HIT');
      expect(content(r.text)).toBe(await truth(a.url, ATP));
      const s = await invalidationStatus(p.url);
      expect(s['fallbacks']).toBe(0);
      expect((s['guarded'] as Record<string, number>)['cross-check']).toBe(0);
    },
  );

  it('when no other upstream agrees, the block falls back to the head rule, counted as a cross-check', async () => {
    sims = [await startSimulator({ seed: 1, blockIntervalMs: 0, startHeight: START })];
    const sim = sims[0]!;
    liar = await startLiar(sim.url);
    proxy = await startReplica([liar.url], {
      upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
      invalidation: PRECISE,
    });
    const p = proxy;
    await covered(p, START);
    await get(p.url, ATP);
    expect((await get(p.url, ATP)).cache).toBe('HIT');

    liar.emptyBlockLists(true);
    sim.chain.advance(1);
    await covered(p, START + 1);
    const r = await get(p.url, ATP);
    expect(r.cache).not.toBe('HIT');
    expect(content(r.text)).toBe(await truth(sim.url, ATP));
    expect((await guarded(p.url))['cross-check']).toBe(1);
    expect((await invalidationStatus(p.url))['fallbacks']).toBe(1);
    expect((await get(p.url, '/metrics')).text).toMatch(
      /chainproxy_invalidation_guarded_total\{reason="cross-check"\} 1/,
    );
  });
});
