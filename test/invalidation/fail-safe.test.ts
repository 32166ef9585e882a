/**
 * Never less fresh than the head rule: a block whose touched set cannot be
 * read in time stales every tag-kept entry; a non-final block's record is
 * stale once that block becomes final.
 */
import { describe, expect, it } from 'vitest';
import { touchedAt } from '../../src/sim/index.js';
import { untilFinal } from '../helpers/until.js';
import { dataOf, get } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, preciseRig, SEED, truth } from './kit.js';

const rig = preciseRig();

describe('fail safe', () => {
  it('a block read too slowly falls back to the head rule, counted', async () => {
    const { sim, proxy } = await rig.start({ invalidation: { ...PRECISE, readTimeoutMs: 100 } });
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const named = touchedAt(SEED, h0 + 1).addresses;
    const kept = [...touchedAt(SEED, h0).addresses].find((a) => !named.has(a))!;
    const p = `/address/info?address=${kept}`;
    await get(proxy.url, p);
    expect((await get(proxy.url, p)).cache).toBe('HIT');

    const before = Number((await invalidationStatus(proxy.url))['fallbacks']);
    sim.setFaults({ latencyMs: 400 });
    sim.chain.advance(1);
    await covered(proxy, h0 + 1);
    sim.setFaults({});
    expect(Number((await invalidationStatus(proxy.url))['fallbacks'])).toBe(before + 1);
    const r = await get(proxy.url, p);
    expect(r.cache).not.toBe('HIT');
    expect(content(r.text)).toBe(await truth(sim.url, p));
    const metrics = (await get(proxy.url, '/metrics')).text;
    expect(metrics).toMatch(/chainproxy_invalidation_fallbacks_total\{reason="timeout"\} [1-9]/);
  });

  it("a non-final block's record is stale once the block is final", async () => {
    const { sim, proxy } = await rig.start();
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const f = h0 - 14; // finality depth 15: final after one more block
    const p = `/block/detail?h=${f}`;
    const first = await get(proxy.url, p);
    expect(dataOf(first.text)['is_finality']).toBe(false);
    expect((await get(proxy.url, p)).cache).toBe('HIT');

    sim.chain.advance(1);
    await covered(proxy, h0 + 1);
    await untilFinal(proxy.tracker, f);
    const r = await get(proxy.url, p);
    expect(r.cache).toBe('MISS');
    expect(dataOf(r.text)['is_finality']).toBe(true);
    expect(content(r.text)).toBe(await truth(sim.url, p));
  });
});
