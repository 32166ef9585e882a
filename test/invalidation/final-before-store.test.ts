/**
 * A final answer teaches its finality before it is stored. The block reader
 * cannot read the block list (the forwarder in front of the simulator fails
 * it), so the proxy has learned no final height when a client asks for an
 * old, final block: the answer that shows it final is kept as final from the
 * first fetch, and the second request is a hit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, PRECISE, SEED } from './kit.js';

let sim: SimulatorHandle | undefined;
let front: FakeUpstream | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await front?.close();
  await sim?.close();
  proxy = front = sim = undefined;
});

describe('a final block/detail while no final height is known', () => {
  it('is a hit on its second request', async () => {
    sim = await startSimulator({ seed: SEED, blockIntervalMs: 0 });
    const s = sim;
    front = await startFakeUpstream(async (req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/block/list')) return sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}');
      const r = await fetch(s.url + url);
      sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
    });
    proxy = await startReplica([front.url], {
      upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
      invalidation: PRECISE,
    });
    const head = s.chain.head();
    await covered(proxy, head);
    expect(proxy.tracker.finalHeight()).toBeNull();

    const old = `/block/detail?h=${head - 100}`;
    const first = await get(proxy.url, old);
    expect(first.cache).toBe('MISS');
    expect(first.text).toContain('"is_finality":true');
    expect(proxy.tracker.finalHeight()).toBe(head - 100);
    expect((await get(proxy.url, old)).cache).toBe('HIT');
    expect(front.requests.filter((r) => r.url === old).length).toBe(1);
  });
});
