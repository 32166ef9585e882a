/**
 * WORKERS=2 without Redis does the fleet's background work once, as an
 * operator runs it (src/main.ts in its own process): one worker leads under a
 * lease held in the cluster primary (head probes, the pending-pool poll), the
 * other follows; over the same span the upstream sees the probes and polls of
 * one process, as with WORKERS=1. A killed leader is replaced by the other
 * worker within two probe intervals, and its replacement follows.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startProc, type Proc } from '../process/kit.js';

type Line = Record<string, unknown>;

/** The probe and pending-poll interval: long enough that a loaded machine's stalls do not pass for a dead leader. */
const INTERVAL = 1000;
/** The span over which upstream requests are counted. */
const SPAN = 8 * INTERVAL;
const GAINED = 'fleet leader: this replica does the background work';

const env = (upstream: string, workers: number): Record<string, string> => ({
  WORKERS: String(workers),
  UPSTREAM_URLS: upstream,
  UPSTREAM_PROBE_INTERVAL_MS: String(INTERVAL),
  UPSTREAM_PROBE_DENSE_MS: '0',
  INVALIDATION_MODE: 'precise',
  INVALIDATION_PENDING_POLL_MS: String(INTERVAL),
});

/** The newest listening line of each worker (0: a single process). */
function listening(p: Proc): Map<number, Line> {
  const out = new Map<number, Line>();
  for (const l of p.lines)
    if (l['msg'] === 'chainproxy listening') out.set(typeof l['worker'] === 'number' ? l['worker'] : 0, l);
  return out;
}

async function listeningAs(p: Proc, n: number): Promise<void> {
  await p.until(() => listening(p).size === n || p.child.exitCode !== null, `${n} listening`, 120_000);
  if (listening(p).size !== n) throw new Error(`exited ${p.child.exitCode}; stderr:\n${p.stderr()}`);
}

/** Workers whose newest role line says they lead (lines of a worker's earlier, dead process are not its). */
function leaders(p: Proc): number[] {
  const now = new Map([...listening(p)].map(([w, l]) => [w, l['pid']]));
  const last = new Map<number, boolean>();
  for (const l of p.lines) {
    const w = l['worker'];
    if (typeof w !== 'number' || typeof l['msg'] !== 'string' || !l['msg'].startsWith('fleet leader: ')) continue;
    if (now.get(w) === l['pid']) last.set(w, l['msg'] === GAINED);
  }
  return [...last].filter(([, leads]) => leads).map(([w]) => w);
}

/** An upstream in front of the simulator that counts what it is asked. */
async function countingUpstream(sim: SimulatorHandle): Promise<FakeUpstream> {
  return startFakeUpstream(async (req, res) => {
    const r = await fetch(sim.url + (req.url ?? '/'));
    sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
  });
}

/** Requests for heads and the pending pool so far. */
function background(u: FakeUpstream): { heads: number; pool: number } {
  let heads = 0;
  let pool = 0;
  for (const r of u.requests) {
    if (r.url.startsWith('/block/max')) heads++;
    else if (r.url.startsWith('/tx/list/pending')) pool++;
  }
  return { heads, pool };
}

const minus = (a: { heads: number; pool: number }, b: { heads: number; pool: number }) => ({
  heads: a.heads - b.heads,
  pool: a.pool - b.pool,
});

/** Past start-up: every process has probed a few times since listening. */
async function settled(u: FakeUpstream): Promise<void> {
  const from = background(u).heads;
  await waitFor(() => background(u).heads >= from + 3, 30 * INTERVAL, 'three probes');
}

describe('WORKERS=2 without Redis: background work once', { timeout: 300_000 }, () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 3, blockIntervalMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('the upstream sees the probes and pool polls of one process, as with WORKERS=1 over the same span', async () => {
    const [one, two] = await Promise.all([countingUpstream(sim), countingUpstream(sim)]);
    try {
      const single = startProc(env(one.url, 1));
      const pair = startProc(env(two.url, 2));
      await Promise.all([listeningAs(single, 1), listeningAs(pair, 2)]);
      await Promise.all([settled(one), settled(two)]);
      const from = [background(one), background(two)] as const;
      await new Promise((r) => setTimeout(r, SPAN));
      const alone = minus(background(one), from[0]);
      const both = minus(background(two), from[1]);
      expect(alone.heads).toBeGreaterThanOrEqual(3);
      expect(alone.pool).toBeGreaterThanOrEqual(3);
      // One prober and one poller: two processes doing the work would ask about twice as often.
      expect(both.heads).toBeLessThanOrEqual(Math.ceil(alone.heads * 1.25) + 1);
      expect(both.pool).toBeLessThanOrEqual(Math.ceil(alone.pool * 1.25) + 1);
      expect(leaders(pair)).toHaveLength(1);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('a killed leader worker is replaced by the other within two probe intervals, which follows', async () => {
    const upstream = await countingUpstream(sim);
    try {
      const p = startProc(env(upstream.url, 2));
      await listeningAs(p, 2);
      await p.until(() => leaders(p).length === 1, 'one leader', 10 * INTERVAL);
      const [old] = leaders(p);
      const other = old === 1 ? 2 : 1;
      const pid = Number(listening(p).get(old!)!['pid']);
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      await p.until(() => leaders(p).includes(other), 'the other worker to lead', 20 * INTERVAL);
      const took = p.lines.find((l) => l['worker'] === other && l['msg'] === GAINED && Number(l['time']) >= killedAt);
      expect(Number(took?.['time']) - killedAt).toBeLessThanOrEqual(2 * INTERVAL);

      // The replacement (same number) follows: the upstream again sees one prober.
      await p.until(() => listening(p).get(old!)?.['pid'] !== pid, 'a replacement worker', 120_000);
      await settled(upstream);
      const from = background(upstream);
      await new Promise((r) => setTimeout(r, SPAN));
      expect(minus(background(upstream), from).heads).toBeLessThanOrEqual(SPAN / INTERVAL + 2);
      expect(leaders(p)).toEqual([other]);
      const doc = await (
        await request(`${String(listening(p).get(other)!['url'])}/metrics`, { reset: true })
      ).body.text();
      const led = doc.split('\n').filter((l) => /^chainproxy_fleet_leader\{[^}]*\} 1$/.test(l));
      expect(led).toHaveLength(1);
      expect(led[0]).toContain(`worker="${other}"`);
    } finally {
      await upstream.close();
    }
  });
});
