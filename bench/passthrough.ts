/**
 * Passthrough cost, each server in its own process.
 * (1) Uncacheable: the same 2 KiB answer (no freshness from the backend, no
 * policy for its prefix) fetched from a bare Fastify backend directly, through
 * a bare @fastify/http-proxy server (the library alone) and through a
 * chainproxy passthrough route: throughput ratios and CPU time per proxied
 * request of both proxies (from /proc, utime + stime).
 * (2) Cached: on the same chainproxy process, a passthrough HIT
 * (`PASSTHROUGH_CACHE=/explorer=head`, `timestamp=` ignored and varying per
 * request as the explorer front end sends it) against an API memory hit of the
 * same bytes (a final `block/detail` of the built-in simulator; the backend
 * of /explorer sends those bytes): server CPU per request at one fixed offered
 * load, interleaved rounds, median of per-round ratios (target <= 1.2).
 * Writes bench/results/passthrough.md.
 *
 *   npx tsx bench/passthrough.ts [--duration S] [--connections N] [--rounds N] [--rate R]
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuRatio, hitRounds } from './lib/hit-rounds.js';
import { combine, median } from './lib/context.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { NODE_TSX, ROOT, cpuSeconds, freePort, getRaw, spawnChild, stopAll, waitForHttp } from './lib/proc.js';
import { startProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    rate: { type: 'string', default: '2000' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const rate = Number(values.rate);

/** A bare Fastify server answering every GET with the bytes of `file` (bench/lib/bare-server.ts). */
async function backend(name: string, port: number, file: string, contentType: string): Promise<string> {
  const child = spawnChild(name, NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-server.ts'], {
    BARE_PORT: String(port),
    BARE_BODY_FILE: file,
    BARE_HEADERS: JSON.stringify({ 'content-type': contentType }),
    NODE_ENV: 'production',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/x`, child);
  return url;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-bench-pt-'));
  const bodyFile = join(dir, 'body.bin');
  writeFileSync(bodyFile, Buffer.alloc(2048, 'x'));
  const backendUrl = await backend('backend', await freePort(), bodyFile, 'application/octet-stream');
  const barePort = await freePort();
  const bare = spawnChild('bare-proxy', NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-proxy-server.ts'], {
    BARE_PORT: String(barePort),
    BARE_UPSTREAM: backendUrl,
  });
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHttp(`${bareUrl}/api/x`, bare);
  // The explorer's backend starts once the API hit's bytes are known (below); its port now.
  const explorerPort = await freePort();
  const proxy = await startProxyProc([], {
    PASSTHROUGH: `/api=${backendUrl},/explorer=http://127.0.0.1:${explorerPort}`,
    PASSTHROUGH_CACHE: '/explorer=head',
    PASSTHROUGH_IGNORE_PARAMS: 'timestamp',
    UPSTREAM_URLS: '',
    SIM_BLOCK_INTERVAL_MS: '3600000',
  });
  const pid = proxy.child.proc.pid;

  // (1) uncacheable passthrough, as before the cache existed
  const load = (url: string): Promise<LoadResult> => runLoad({ url, path: '/api/tx/abc', connections, duration });
  const measured = async (url: string, p: number | undefined): Promise<{ r: LoadResult; cpuUs: number }> => {
    const c0 = cpuSeconds(p) ?? NaN;
    const r = await load(url);
    return { r, cpuUs: perRequestUs((cpuSeconds(p) ?? NaN) - c0, r.total) };
  };
  for (const url of [backendUrl, bareUrl, proxy.url]) await load(url); // warm-up
  const direct = await load(backendUrl);
  const lib = await measured(bareUrl, bare.proc.pid);
  const through = await measured(proxy.url, pid);
  const bypass = (await getRaw(`${proxy.url}/api/tx/abc`)).headers['x-cache'] ?? '(none)';

  // (2) a passthrough HIT against an API memory hit of the same bytes
  const head = (JSON.parse((await getRaw(`${proxy.url}/block/max`)).body.toString()) as { data: { height: number } })
    .data.height;
  const apiPath = `/block/detail?h=${Math.floor(head) - 100}`;
  await getRaw(proxy.url + apiPath);
  const apiHit = await getRaw(proxy.url + apiPath);
  const apiFile = join(dir, 'api-hit.json');
  writeFileSync(apiFile, apiHit.body);
  await backend('explorer-backend', explorerPort, apiFile, 'application/json; charset=utf-8');
  let stamp = Date.now();
  const ptPath = (): string => `/explorer/block/list?page_size=40&timestamp=${++stamp}`;
  await getRaw(proxy.url + ptPath());
  const ptHit = await getRaw(proxy.url + ptPath());
  const byTarget = await hitRounds(
    [
      { name: 'API memory hit', sample: () => apiPath },
      { name: 'passthrough HIT', sample: ptPath },
    ],
    { url: proxy.url, pid, connections, durationS: Math.min(duration, 3), rate, rounds, log: (l) => console.error(l) },
  );
  const ptAfter = (await getRaw(proxy.url + ptPath())).headers['x-cache'];
  const api = byTarget.get('API memory hit')!;
  const pt = byTarget.get('passthrough HIT')!;
  const ratio = cpuRatio(pt, api);

  type Rs = ReadonlyArray<LoadResult>;
  const errors = (rs: Rs): number => rs.reduce((a, r) => a + r.non2xx + r.errors, 0);
  const row = (name: string, rs: Rs, cpu = ''): string => {
    const c = combine(rs);
    return `| ${name} | ${Math.round(c.rps)} | ${c.p50} | ${c.p99} | ${errors(rs)} | ${cpu} |`;
  };
  const cpuMedian = (rs: typeof api): string => median(rs.map((r) => r.cpuUs)).toFixed(1);
  const cpu = cpus();
  const report = [
    `# Passthrough (${new Date().toISOString()})`,
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `Node ${process.version}. Command: \`npx tsx bench/passthrough.ts --duration ${duration} ` +
      `--connections ${connections} --rounds ${rounds} --rate ${rate}\`.`,
    '',
    `## Uncacheable passthrough (${connections} connections, ${duration} s each, 2 KiB body, X-Cache ${bypass})`,
    '',
    '| target | req/s | p50 ms | p99 ms | errors | proxy CPU µs/req |',
    '|---|---|---|---|---|---|',
    row('backend directly', [direct]),
    row('bare @fastify/http-proxy', [lib.r], lib.cpuUs.toFixed(0)),
    row('chainproxy passthrough', [through.r], through.cpuUs.toFixed(0)),
    '',
    `throughput ratio chainproxy passthrough / bare @fastify/http-proxy: ${(through.r.rps / lib.r.rps).toFixed(2)}`,
    `throughput ratio chainproxy passthrough / backend directly: ${(through.r.rps / direct.rps).toFixed(2)}`,
    '',
    `## Passthrough HIT against API memory hit (${apiHit.body.length} B body both, ${connections} connections, ` +
      `${rounds} interleaved rounds; CPU at ${rate} req/s offered)`,
    '',
    `X-Cache: API ${apiHit.headers['x-cache']}, passthrough ${ptHit.headers['x-cache']} (after the rounds ${ptAfter}).`,
    '',
    '| target | req/s (max) | p50 ms | p99 ms | errors | server CPU µs/req (median) |',
    '|---|---|---|---|---|---|',
    row('API memory hit', api, cpuMedian(api)),
    row('passthrough HIT', pt, cpuMedian(pt)),
    '',
    `server CPU per request, passthrough HIT / API memory hit: ${ratio.median.toFixed(2)} (target <= 1.2; ` +
      `per round ${ratio.perRound.map((x) => x.toFixed(2)).join(' ')})`,
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'bench/results/passthrough.md'), report);
  process.stdout.write(report);
}

function perRequestUs(seconds: number, requests: number): number {
  return (seconds / Math.max(requests, 1)) * 1e6;
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => void stopAll());
