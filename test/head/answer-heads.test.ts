/**
 * Heads learned from any answer, not only probes: with probes far apart, a
 * block/list page, chain/summary or the tx/list of a new height moves the
 * proxy's head at once (through the chain facts and the tracker's trust).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import type { ProxyHandle } from '../../src/app.js';
import { untilHead } from '../helpers/until.js';

async function bestHead(base: string): Promise<number | null> {
  const body = (await (await fetch(`${base}/status`)).json()) as { data: { chain: { bestHead: number | null } } };
  return body.data.chain.bestHead;
}

async function txCount(sim: SimulatorHandle, height: number): Promise<number> {
  const body = (await (await fetch(`${sim.url}/tx/list?block_height=${height}&page=1&page_size=1`)).json()) as {
    data: { count: number };
  };
  return body.data.count;
}

describe('heads learned from answers', () => {
  let sim: SimulatorHandle;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0 });
    // Probes an hour apart: only the first one runs during the test.
    proxy = await startTestProxy([sim.url], { upstream: { probeIntervalMs: 3_600_000 } });
    const start = sim.chain.head();
    await untilHead(proxy.tracker, (h) => h === start, 'the first probe', 5000);
    expect(await bestHead(proxy.url)).toBe(start);
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
  });

  it('the first page of block/list', async () => {
    const head = sim.chain.advance(1);
    const r = await fetch(`${proxy.url}/block/list?page=1&page_size=5`);
    expect(r.status).toBe(200);
    expect(await bestHead(proxy.url)).toBe(head);
  });

  it('chain/summary', async () => {
    const head = sim.chain.advance(1);
    const r = await fetch(`${proxy.url}/chain/summary`);
    expect(r.status).toBe(200);
    expect(await bestHead(proxy.url)).toBe(head);
  });

  it('tx/list of a new height', async () => {
    let head = sim.chain.advance(1);
    while ((await txCount(sim, head)) === 0) head = sim.chain.advance(1);
    const r = await fetch(`${proxy.url}/tx/list?block_height=${head}&page=1&page_size=5`);
    expect(r.status).toBe(200);
    expect(await bestHead(proxy.url)).toBe(head);
  });
});
