/**
 * Fleet-wide purge time: a purge asked of replica A, until replica B no longer
 * serves what it purged.
 *
 *   npx tsx bench/purge.ts [--rounds N]
 *
 * redis-server, the simulator and two proxies (one Redis) each in their own
 * process. Per round a final block is cached on A (MISS) and on B (HIT from
 * Redis, then from memory); then a poller asks B for it back to back on one
 * connection while A is asked to purge it (alternately by exact key and by
 * its `height:` tag). Reported per kind: A's answer time, and when B stopped
 * serving it: the send time of the first request B did not answer as a HIT
 * (the purge had reached B before it), after the last it answered as a HIT.
 * Times from just before the purge request; p50, p90 and maximum of the rounds.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startProxyProc } from './lib/proxy.js';
import { startRedis } from './lib/redis.js';
import { startSim } from './lib/sim.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' } } });
const ROUNDS = Math.max(2, Number(values.rounds) || 40);

async function cacheOf(pool: Pool, path: string): Promise<string> {
  const r = await pool.request({ method: 'GET', path });
  await r.body.dump();
  return String(r.headers['x-cache'] ?? '');
}

interface Round {
  answerMs: number;
  lastHitMs: number;
  firstMissMs: number;
}

async function round(a: Pool, b: Pool, path: string, query: string): Promise<Round> {
  await cacheOf(a, path);
  // Until B holds it (a replica just started may not trust what it finds at first).
  const until = performance.now() + 5000;
  while ((await cacheOf(b, path)) !== 'HIT')
    if (performance.now() > until) throw new Error(`${path} is not a hit on B`);
  const t0 = performance.now();
  let lastHitMs = 0;
  let firstMissMs = -1;
  const poll = (async () => {
    while (firstMissMs < 0 && performance.now() - t0 < 5000) {
      const sent = performance.now() - t0;
      if ((await cacheOf(b, path)) === 'HIT') lastHitMs = sent;
      else firstMissMs = sent;
    }
  })();
  const res = await a.request({ method: 'POST', path: `/purge?${query}` });
  const answerMs = performance.now() - t0;
  const body = (await res.body.json()) as { data?: { fleet?: { published?: boolean } } };
  if (res.statusCode !== 200 || body.data?.fleet?.published !== true)
    throw new Error(`purge ${query}: ${res.statusCode} ${JSON.stringify(body)}`);
  await poll;
  if (firstMissMs < 0) throw new Error(`B still serves ${path} 5 s after the purge`);
  return { answerMs, lastHitMs, firstMissMs };
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const fmt = (xs: number[]): string => [0.5, 0.9, 1].map((q) => quantile(xs, q).toFixed(1)).join(' / ');

const redis = await startRedis();
const sim = await startSim({ blockIntervalMs: 15_000 });
const env = { REDIS_URL: redis.url, ADMIN_ALLOW: '127.0.0.1' };
const [pa, pb] = await Promise.all([
  startProxyProc([sim.url], env, 'replica-a'),
  startProxyProc([sim.url], env, 'replica-b'),
]);
const a = new Pool(pa.url, { connections: 1 });
const b = new Pool(pb.url, { connections: 1 });
try {
  const results: Record<string, Round[]> = { key: [], tag: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const h = 4_840_000 - i;
    const path = `/block/detail?h=${h}`;
    const kind = i % 2 === 0 ? 'key' : 'tag';
    results[kind]!.push(
      await round(a, b, path, kind === 'key' ? `key=${encodeURIComponent(path)}` : `tag=height:${h}`),
    );
  }
  console.log(`purge on A, until B no longer serves it (${ROUNDS} rounds; ms, p50 / p90 / max)\n`);
  console.log('| kind | A answered | B last HIT sent | B first non-HIT sent |');
  console.log('|---|---|---|---|');
  for (const [kind, rs] of Object.entries(results)) {
    console.log(
      `| ${kind} | ${fmt(rs.map((r) => r.answerMs))} | ` +
        `${fmt(rs.map((r) => r.lastHitMs))} | ${fmt(rs.map((r) => r.firstMissMs))} |`,
    );
  }
} finally {
  await a.close();
  await b.close();
  await Promise.all([pa.close(), pb.close()]);
  await Promise.all([sim.close(), redis.close()]);
}
