/**
 * Answers about blocks above the trusted head never feed the block reader and
 * are never kept by tags: three anonymous requests for the pages the reader
 * reads (`tx/list?block_height=<head+1..3>&page=1&page_size=100`, empty while
 * those blocks do not exist) change nothing when the blocks come. Blocks
 * 4842004..4842006 carry ATP transfers: the ATP transfer list and the activity
 * stream watching the ATP contract show each one within its block.
 */
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/sim/index.js';
import { get } from '../helpers/replica.js';
import { openStream } from '../stream/sse-client.js';
import { content, covered, invalidationStatus, preciseRig, truth } from './kit.js';

const rig = preciseRig();
const START = 4_842_003;
const ATP = '/token/tx/list?token=ATP';
const contract = TOKENS.find((t) => t.name === 'ATP')!.contract;

interface ActivityData {
  height: number;
  complete: boolean;
  txs: Record<string, unknown>[];
}

describe('answers about blocks above the head', () => {
  it('future-block poisoning: pages asked before their blocks exist neither stay nor feed the reader', async () => {
    const { sim, proxy } = await rig.start({}, { startHeight: START });
    await covered(proxy, START);
    await get(proxy.url, ATP);
    expect((await get(proxy.url, ATP)).cache).toBe('HIT');
    const watch = await openStream(proxy.url, { path: '/stream/activity', query: `?contract=${contract}` });
    try {
      for (let i = 1; i <= 3; i++) {
        const r = await get(proxy.url, `/tx/list?block_height=${START + i}&page=1&page_size=100`);
        expect(JSON.parse(r.text)).toMatchObject({ code: 0, data: { count: 0, list: [] } });
      }

      for (let i = 1; i <= 3; i++) {
        const h = START + i;
        sim.chain.advance(1);
        await covered(proxy, h);
        const r = await get(proxy.url, ATP);
        expect(r.cache, `block ${h}`).not.toBe('HIT');
        expect(content(r.text), `block ${h}`).toBe(await truth(sim.url, ATP));
        await watch.until(() => watch.events.some((e) => e.id === String(h)), 5000, `the activity event of block ${h}`);
        const d = JSON.parse(watch.events.find((e) => e.id === String(h))!.data) as ActivityData;
        expect(d.complete).toBe(true);
        expect(d.txs.length).toBeGreaterThan(0);
        for (const t of d.txs) expect(JSON.stringify(t)).toContain(contract);
        // The page a client asked before the block is no answer now.
        const page = await get(proxy.url, `/tx/list?block_height=${h}&page=1&page_size=100`);
        expect(content(page.text)).toBe(await truth(sim.url, `/tx/list?block_height=${h}&page=1&page_size=100`));
      }
      expect(((await invalidationStatus(proxy.url))['guarded'] as Record<string, number>)['future-height']).toBe(3);
    } finally {
      watch.close();
    }
  });
});
