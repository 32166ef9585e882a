/**
 * (q) What a quorum costs: cold misses of final data (block/detail of distinct
 * old, final heights) through three upstreams with 20±10 ms latency, on a fresh
 * proxy with UPSTREAM_QUORUM=1 and one with UPSTREAM_QUORUM=2: upstream
 * block/detail requests per final miss, p50/p99 of those misses; then one hot
 * final key on each (hits never vote: req/s should not move). The three
 * simulators share one start time, so their answers agree byte for byte (time
 * stamps aside); the note lists the vote outcomes ('short': too few healthy
 * upstreams, e.g. breakers opened by hedge losses on a loaded machine).
 */
import { combine, type Ctx, type Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { startProxyProc } from '../lib/proxy.js';
import { NODE_TSX, freePort, getJson, spawnChild, waitForHttp } from '../lib/proc.js';

/** Answers of an upstream under test, by endpoint (the simulator's /_sim/stats). */
interface Sim {
  url: string;
  requests(): Promise<Record<string, number>>;
  setFaults(f: object): Promise<void>;
  close(): Promise<void>;
}

/**
 * A simulator whose chain starts at `startTime`: twins started a second apart
 * would otherwise differ in every block timestamp (and rightly lose votes).
 */
async function startTwin(name: string, startTime: number, blockIntervalMs: number): Promise<Sim> {
  const port = await freePort();
  const args = [
    'src/sim/cli.ts',
    '--port',
    String(port),
    '--block-interval',
    String(blockIntervalMs),
    '--seed',
    '1',
    '--start-time',
    String(startTime),
  ];
  const child = spawnChild(name, NODE_TSX[0], [...NODE_TSX.slice(1), ...args]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/_sim/chain`, child);
  return {
    url,
    requests: async () => (await getJson<{ requests: Record<string, number> }>(`${url}/_sim/stats`)).requests,
    setFaults: async (f) => {
      await getJson(`${url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f),
      });
    },
    close: () => child.stop(),
  };
}

const BASE = { latencyMs: 20, jitterMs: 10 };
const CONNECTIONS = 20;

/** chainproxy_quorum_votes_total by outcome, as `agreed 10, short 2`. */
async function votes(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: string[] = [];
  for (const m of text.matchAll(/^chainproxy_quorum_votes_total\{[^}]*outcome="(\w+)"[^}]*\} (\d+)/gm))
    out.push(`${m[1]} ${m[2]}`);
  return out.length === 0 ? 'no votes' : `votes: ${out.join(', ')}`;
}

async function blockDetails(sims: readonly Sim[]): Promise<number> {
  const all = await Promise.all(sims.map((s) => s.requests()));
  return all.reduce((n, r) => n + (r['block/detail'] ?? 0), 0);
}

export const quorum: Scenario = {
  id: 'q',
  title: 'final misses with UPSTREAM_QUORUM 2 vs 1',
  async run(ctx: Ctx) {
    const start = Date.now();
    const sims = await Promise.all([0, 1, 2].map((i) => startTwin(`sim-q${i}`, start, ctx.blockIntervalMs)));
    try {
      await Promise.all(sims.map((s) => s.setFaults(BASE)));
      const dur = ctx.d(8, 2);
      let key = 2_000_000; // final, and apart from the other scenarios' keys
      const res: Record<string, { perMiss: number; p50: number; p99: number; hitRps: number }> = {};
      for (const q of ['1', '2']) {
        const proxy = await startProxyProc(
          sims.map((s) => s.url),
          { UPSTREAM_QUORUM: q },
          `proxy-q${q}`,
        );
        try {
          const before = await blockDetails(sims);
          const r = await runLoad({
            url: proxy.url,
            sample: () => `/block/detail?h=${key++}`,
            connections: CONNECTIONS,
            duration: dur,
          });
          const up = (await blockDetails(sims)) - before;
          const c = combine([r]);
          const voted = await votes(proxy.url);
          const hot = `/block/detail?h=${key - 1}`;
          await fetch(proxy.url + hot);
          const c0 = await proxy.cacheCounts();
          const hit = await runLoad({ url: proxy.url, path: hot, connections: CONNECTIONS, duration: ctx.d(3, 1) });
          const hits = (await proxy.cacheCounts()).HIT - c0.HIT;
          res[q] = { perMiss: up / r.total, p50: c.p50, p99: c.p99, hitRps: hit.rps };
          ctx.rows.push({
            scenario: 'q final misses, 3 upstreams',
            target: `proxy, UPSTREAM_QUORUM=${q}`,
            rps: c.rps,
            p50: c.p50,
            p99: c.p99,
            hitRatio: null,
            upPer1000: (up / r.total) * 1000,
            note:
              `${(up / r.total).toFixed(2)} upstream block/detail per final miss; ` +
              `${r.total} misses, ${r.non2xx} non-2xx, ${r.errors} errors; ` +
              `${voted}; hot key: ${Math.round(hit.rps)} req/s, ${hits}/${hit.total} HIT`,
          });
        } finally {
          await proxy.close();
        }
      }
      const one = res['1'];
      const two = res['2'];
      if (one && two) {
        ctx.ratios.push({
          name: 'q: upstream requests per final miss, quorum 2 / 1',
          value: two.perMiss / one.perMiss,
          goal: '≈ 2',
          pass: two.perMiss / one.perMiss < 2.5,
          detail:
            `${two.perMiss.toFixed(2)} vs ${one.perMiss.toFixed(2)}; p50 ${two.p50} vs ${one.p50} ms; p99 ` +
            `${two.p99} vs ${one.p99} ms; hits ${Math.round(two.hitRps)} vs ${Math.round(one.hitRps)} req/s`,
        });
      }
    } finally {
      await Promise.all(sims.map((s) => s.close()));
    }
  },
};
