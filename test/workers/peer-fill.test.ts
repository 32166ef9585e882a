/**
 * WORKERS=2 without Redis, as an operator runs it (src/main.ts in its own
 * process): each worker keeps its own memory tier, yet a key one worker
 * fetched is not fetched again by the other: the other's miss is answered
 * from the first worker's memory through the cluster primary.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startProc } from '../process/kit.js';

/** A request on a connection of its own (the cluster hands each connection to the next worker). */
async function getOnce(url: string): Promise<{ status: number; text: string; cache: unknown }> {
  const res = await request(url, { reset: true });
  return { status: res.statusCode, text: await res.body.text(), cache: res.headers['x-cache'] };
}

/** Requests one worker served for an endpoint, from the machine's /metrics. */
function served(doc: string, worker: string, endpoint: string): number {
  let sum = 0;
  for (const line of doc.split('\n')) {
    const m = /^chainproxy_requests_total\{([^}]*)\} (\S+)$/.exec(line);
    if (m !== null && m[1]!.includes(`worker="${worker}"`) && m[1]!.includes(`endpoint="${endpoint}"`))
      sum += Number(m[2]);
  }
  return sum;
}

describe('WORKERS=2 without Redis: a miss answered from the other worker', { timeout: 300_000 }, () => {
  let sim: SimulatorHandle;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 4, blockIntervalMs: 0 });
    upstream = await startFakeUpstream(async (req, res) => {
      const r = await fetch(sim.url + (req.url ?? '/'));
      sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
    });
  });
  afterAll(async () => {
    await upstream?.close();
    await sim?.close();
  });

  it('a key fetched through one worker, then asked many times on the port: the upstream sees it once', async () => {
    // A lend wait long enough for a loaded machine: what is tested is that the peer lends, not how fast.
    const p = startProc({ WORKERS: '2', UPSTREAM_URLS: upstream.url, WORKERS_LEND_WAIT_MS: '5000' });
    const urls = (): unknown[] =>
      p.lines
        .filter((l) => l['msg'] === 'chainproxy listening' && typeof l['worker'] === 'number')
        .map((l) => l['url']);
    await p.until(() => urls().length === 2 || p.child.exitCode !== null, 'two listening workers', 120_000);
    if (urls().length !== 2) throw new Error(`exited ${p.child.exitCode}; stderr:\n${p.stderr()}`);
    const url = String(urls()[0]);
    const path = `/block/detail?h=${sim.chain.head() - 100}`;
    const first = await getOnce(`${url}${path}`);
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    for (let i = 0; i < 10; i++) {
      // The other worker's first answer is lent (no upstream request): a HIT, not a MISS.
      expect(await getOnce(`${url}${path}`)).toMatchObject({ status: 200, cache: 'HIT' });
    }
    // Both workers answered it (connections go round-robin), and the upstream was asked once.
    const doc = (await getOnce(`${url}/metrics`)).text;
    expect(served(doc, '1', 'block/detail')).toBeGreaterThan(0);
    expect(served(doc, '2', 'block/detail')).toBeGreaterThan(0);
    expect(upstream.requests.filter((r) => r.url === path)).toHaveLength(1);
  });
});
