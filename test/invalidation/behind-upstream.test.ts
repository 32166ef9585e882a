/**
 * Two upstreams a block apart (two simulators, same seed, each behind a
 * forwarder on a real socket). The one at the best head fails the token's
 * transfer list, so the answer comes from the one behind, without the newest
 * block's transfer. That answer is served, stamped with the head of the
 * upstream that gave it, and kept only until the block it lacks is known to
 * change it: once both upstreams have the block, and six blocks later, the
 * list is the truth, never the old answer as a HIT.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { counter, get, startReplica, upstreamStatus, type Replica } from '../helpers/replica.js';
import { content, covered, PRECISE, SEED, truth } from './kit.js';

/** The simulator's ATP transfers: slot transactions of heights h mod 8 ≥ 4 with ⌊h/8⌋ mod 6 = 0. */
const atp = (h: number): boolean => h % 8 >= 4 && Math.floor(h / 8) % 6 === 0;
/** Block START + 1 transfers ATP; the next six do not. */
const START = 4_842_006;
const LIST = '/token/tx/list?token=ATP&page=1&page_size=20';

let sims: SimulatorHandle[] = [];
let fronts: FakeUpstream[] = [];
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await Promise.all(fronts.map((f) => f.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  fronts = [];
  proxy = undefined;
});

/** A forwarder to `sim` that answers 500 to the token transfer list while `failing()`. */
function front(sim: SimulatorHandle, failing: () => boolean): Promise<FakeUpstream> {
  return startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    if (failing() && url.startsWith('/token/tx/list'))
      return sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}');
    const r = await fetch(sim.url + url);
    sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
  });
}

describe('an answer from an upstream behind the best head', () => {
  it('is served, and never kept past the block it lacks', async () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => atp(START + i))).toEqual([true, false, false, false, false, false, false]);
    const startTime = Date.now();
    sims = await Promise.all(
      [0, 1].map(() => startSimulator({ seed: SEED, blockIntervalMs: 0, startTime, startHeight: START })),
    );
    const [ahead, behind] = sims as [SimulatorHandle, SimulatorHandle];
    let failing = false;
    fronts = [await front(ahead, () => failing), await front(behind, () => false)];
    proxy = await startReplica(
      fronts.map((f) => f.url),
      { upstream: { probeIntervalMs: 50, headMarginBlocks: 100, maxLagBlocks: 2 }, invalidation: PRECISE },
    );
    const p = proxy;
    await covered(p, START);

    ahead.chain.advance(1);
    await covered(p, START + 1);
    failing = true;
    const answered = fronts[1]!.count('/token/tx/list');
    const old = await get(p.url, LIST);
    expect(old.status).toBe(200);
    // The one at the head failed; the one a block behind answered, without block START + 1.
    expect(fronts[1]!.count('/token/tx/list')).toBe(answered + 1);
    expect(content(old.text)).not.toBe(await truth(ahead.url, LIST));
    expect(
      await counter(p.url, 'chainproxy_invalidation_guarded_total', { reason: 'behind-upstream' }),
    ).toBeGreaterThanOrEqual(1);
    failing = false;

    behind.chain.advance(1);
    await waitFor(
      async () => (await upstreamStatus(p.url)).every((u) => u.head === START + 1),
      5000,
      'both upstreams at the block',
    );
    for (let i = 1; i <= 6; i++) {
      for (const s of sims) s.chain.advance(1);
      await covered(p, START + 1 + i);
    }
    const now = await get(p.url, LIST);
    expect(now.cache).not.toBe('HIT');
    expect(content(now.text)).toBe(await truth(ahead.url, LIST));
    expect(content(now.text)).not.toBe(content(old.text));
  });
});
