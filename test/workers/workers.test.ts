/**
 * WORKERS=2 without Redis, as an operator runs it (the heap-cap launcher
 * src/bin/chainproxy.ts, behind `npm start`, in its own process): two workers
 * under the cap answer on one port, the primary is their bus and lease (a
 * block is read once for both, a purge reaches both), /metrics is one
 * document for the machine, a killed worker is replaced, SIGTERM to the
 * launcher drains both and exits 0.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { promtoolAvailable, runPromtool } from '../helpers/prometheus.js';
import { heapLimitFor, LAUNCHER, startProc, type Proc } from '../process/kit.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { heapCapFlags } from '../../src/startup/heap-cap.js';

type Line = Record<string, unknown>;

/** The listening line of each worker (the newest one per worker number). */
function listeningLines(p: Proc): Map<number, Line> {
  const out = new Map<number, Line>();
  for (const l of p.lines)
    if (l['msg'] === 'chainproxy listening' && typeof l['worker'] === 'number') out.set(l['worker'], l);
  return out;
}

async function bothListening(p: Proc): Promise<string> {
  await p.until(() => listeningLines(p).size === 2 || p.child.exitCode !== null, 'two listening workers', 120_000);
  const lines = [...listeningLines(p).values()];
  if (lines.length !== 2) throw new Error(`exited ${p.child.exitCode}; stderr:\n${p.stderr()}`);
  return String(lines[0]!['url']);
}

/** A request on a connection of its own (the cluster hands each connection to the next worker). */
async function getOnce(url: string): Promise<{ status: number; text: string }> {
  const res = await request(url, { reset: true });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Sum of a metric's samples for one worker (label filter as a regex on the label set). */
function sampleSum(doc: string, name: string, worker: string, labels = ''): number {
  let sum = 0;
  for (const line of doc.split('\n')) {
    const m = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (m === null || !m[1]!.includes(`worker="${worker}"`) || !m[1]!.includes(labels)) continue;
    sum += Number(m[2]);
  }
  return sum;
}

/** An upstream in front of the simulator that counts what it is asked. */
async function countingUpstream(sim: SimulatorHandle): Promise<FakeUpstream> {
  return startFakeUpstream(async (req, res) => {
    const r = await fetch(sim.url + (req.url ?? '/'));
    sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
  });
}

describe('WORKERS=2 without Redis', { timeout: 300_000 }, () => {
  let sim: SimulatorHandle;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 1, blockIntervalMs: 0 });
    upstream = await countingUpstream(sim);
  });
  afterAll(async () => {
    await upstream?.close();
    await sim?.close();
  });

  /** Both workers answer on the one port, and /metrics is one document with a worker label. */
  async function servesFromBoth(p: Proc, url: string): Promise<void> {
    const urls = new Set([...listeningLines(p).values()].map((l) => l['url']));
    expect(urls.size).toBe(1);
    for (let i = 0; i < 6; i++) expect((await getOnce(`${url}/block/max`)).status).toBe(200);
    const doc = (await getOnce(`${url}/metrics`)).text;
    for (const w of ['1', '2'])
      expect(sampleSum(doc, 'chainproxy_requests_total', w, 'endpoint="block/max"')).toBeGreaterThan(0);
    // One HELP and one TYPE per family, whatever the worker count.
    expect(doc.split('\n').filter((l) => l.startsWith('# HELP chainproxy_requests_total '))).toHaveLength(1);
    if (promtoolAvailable()) {
      const res = runPromtool(['check', 'metrics'], doc);
      expect(res.stdout + res.stderr).toBe('');
      expect(res.status).toBe(0);
    }
  }

  /** A new block is read once for both workers; the other hears its touched set from the primary. */
  async function readsBlockOnce(url: string): Promise<void> {
    const published = async (w: string): Promise<number> =>
      sampleSum((await getOnce(`${url}/metrics`)).text, 'chainproxy_invalidation_blocks_total', w);
    const reads = (h: number): number =>
      upstream.requests.filter(
        (r) => r.url.startsWith('/tx/list?') && r.url.includes(`block_height=${h}`) && /[?&]page=1(&|$)/.test(r.url),
      ).length;
    // Both past a first block (read by one of them, or heard), so the next block is an ordinary read.
    await waitFor(
      async () => (await published('1')) > 0 && (await published('2')) > 0,
      60_000,
      'both workers past their first block',
    );
    const before = [await published('1'), await published('2')];
    const h = sim.chain.head() + 1;
    sim.chain.advance(1);
    await waitFor(
      async () => (await published('1')) > before[0]! && (await published('2')) > before[1]!,
      60_000,
      'both workers publishing the new block',
    );
    expect(reads(h)).toBe(1);
  }

  /** A purge asked of one worker reaches the other through the primary. */
  async function purgesBoth(url: string): Promise<void> {
    const res = await request(`${url}/purge?all=true`, { method: 'POST', reset: true });
    const answer = (await res.body.json()) as { code: number; data: { reach: string; fleet: unknown } };
    expect(res.statusCode).toBe(200);
    // No Redis: nothing to store, and no failure reported; the other worker is told.
    expect(answer).toMatchObject({ code: 0, data: { reach: 'workers', fleet: null } });
    const origin = async (w: string, o: string): Promise<number> =>
      sampleSum((await getOnce(`${url}/metrics`)).text, 'chainproxy_purges_total', w, `origin="${o}"`);
    await waitFor(
      async () =>
        (await origin('1', 'here')) + (await origin('2', 'here')) === 1 &&
        (await origin('1', 'fleet')) + (await origin('2', 'fleet')) === 1,
      20_000,
      'the purge on both workers',
    );
    // Heard by the worker that was not asked.
    expect((await origin('1', 'here')) + (await origin('1', 'fleet'))).toBe(1);
  }

  /** A killed worker is replaced under the same number, and the port keeps answering. */
  async function replacesKilled(p: Proc, url: string): Promise<void> {
    const first = listeningLines(p).get(1)!;
    process.kill(Number(first['pid']), 'SIGKILL');
    await p.until(() => listeningLines(p).get(1)?.['pid'] !== first['pid'], 'a replacement worker 1', 120_000);
    expect(
      p.lines.some(
        (l) => l['msg'] === 'worker exited; starting a replacement' && l['worker'] === 1 && l['signal'] === 'SIGKILL',
      ),
    ).toBe(true);
    for (let i = 0; i < 4; i++) expect((await getOnce(`${url}/block/max`)).status).toBe(200);
  }

  it('one port, under the heap cap, a block read once; a killed one replaced; SIGTERM drains, exit 0', async () => {
    const p = startProc(
      {
        WORKERS: '2',
        UPSTREAM_URLS: upstream.url,
        UPSTREAM_PROBE_INTERVAL_MS: '100',
        UPSTREAM_HEAD_MARGIN_BLOCKS: '100',
        INVALIDATION_READ_TIMEOUT_MS: '10000',
        CACHE_MAX_BYTES: '32MiB',
      },
      { entry: LAUNCHER },
    );
    const url = await bothListening(p);
    // Every worker runs under the cap the launcher derives from CACHE_MAX_BYTES.
    const limits = [...listeningLines(p).values()].map((l) => Number(l['heapLimitMiB']));
    const capped = heapLimitFor(heapCapFlags(32 * 2 ** 20, defaultConfig().stream.activityWatchBytes, [], undefined));
    expect(limits).toEqual([capped, capped]);
    await servesFromBoth(p, url);
    await readsBlockOnce(url);
    await purgesBoth(url);
    await replacesKilled(p, url);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const byes = p.lines.filter((l) => l['msg'] === 'bye');
    expect(
      byes
        .filter((l) => typeof l['worker'] === 'number')
        .map((l) => l['worker'])
        .sort(),
    ).toEqual([1, 2]);
    expect(byes.some((l) => l['role'] === 'primary')).toBe(true);
  });
});
