/**
 * Passthrough cost, each server in its own process, in interleaved rounds
 * (bench/lib/rounds.ts: req/s as fast as answered, server CPU per request at
 * one offered load, medians of per-round ratios).
 * (1) Uncacheable: the same 2 KiB answer (no freshness from the backend, no
 * policy for its prefix: `X-Cache: BYPASS`, streamed) through a bare
 * @fastify/http-proxy server (the library alone) and through a chainproxy
 * passthrough route, without a policy (the backend's headers decide, after
 * the fetch) and with `off` (straight to the streaming proxy); with `--baseline DIR`, also through the chainproxy of
 * another checkout (its src/main.ts; DIR needs node_modules), for "unchanged"
 * judged in one run. The backend served directly is the reference row.
 * (2) Cached: on the same chainproxy process, a passthrough HIT
 * (`PASSTHROUGH_CACHE=/explorer=head`, `timestamp=` ignored and varying per
 * request, as the explorer front end sends it) against an API memory hit of
 * the same bytes (a final `block/detail` of the built-in simulator; the
 * backend of /explorer sends those bytes). Target: CPU per request <= 1.2 ×.
 * Writes bench/results/passthrough.md.
 *
 *   npx tsx bench/passthrough.ts [--duration S] [--connections N] [--rounds N] [--rate R] [--baseline DIR]
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { combine, median } from './lib/context.js';
import { runLoad } from './lib/load.js';
import { NODE_TSX, ROOT, freePort, getRaw, spawnChild, stopAll, waitForHttp } from './lib/proc.js';
import { startProxyProc } from './lib/proxy.js';
import { interleaved, ratioOf, type Round, type RoundTarget } from './lib/rounds.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    rate: { type: 'string', default: '2000' },
    baseline: { type: 'string' },
  },
});
const opts = {
  durationS: Number(values.duration),
  connections: Number(values.connections),
  rounds: Number(values.rounds),
  rate: Number(values.rate),
  log: (l: string) => process.stderr.write(`${l}\n`),
};

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

/** chainproxy of the checkout in `dir`, passing /api through to `backendUrl` (no cache settings). */
async function baselineProxy(dir: string, backendUrl: string): Promise<RoundTarget> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnChild('proxy-baseline', NODE_TSX[0], [...NODE_TSX.slice(1), join(dir, 'src/main.ts')], {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URLS: '',
    SIM_BLOCK_INTERVAL_MS: '3600000',
    PASSTHROUGH: `/api=${backendUrl}`,
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'off',
    RATE_LIMIT_ENABLED: 'false',
    NODE_ENV: 'production',
  });
  await waitForHttp(`${url}/healthz`, child);
  return { name: 'chainproxy passthrough (baseline)', url, pid: child.proc.pid, sample: () => '/api/tx/abc' };
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
  await waitForHttp(`http://127.0.0.1:${barePort}/api/x`, bare);
  // The explorer's backend starts once the API hit's bytes are known (below); its port now.
  const explorerPort = await freePort();
  const proxy = await startProxyProc([], {
    PASSTHROUGH: `/api=${backendUrl},/off=${backendUrl},/explorer=http://127.0.0.1:${explorerPort}`,
    PASSTHROUGH_CACHE: '/explorer=head,/off=off',
    PASSTHROUGH_IGNORE_PARAMS: 'timestamp',
    UPSTREAM_URLS: '',
    SIM_BLOCK_INTERVAL_MS: '3600000',
  });
  const pid = proxy.child.proc.pid;

  // (1) uncacheable passthrough
  const api = (): string => '/api/tx/abc';
  const lib: RoundTarget = {
    name: 'bare @fastify/http-proxy',
    url: `http://127.0.0.1:${barePort}`,
    pid: bare.proc.pid,
    sample: api,
  };
  const ours: RoundTarget = { name: 'chainproxy passthrough', url: proxy.url, pid, sample: api };
  // The same backend under a prefix whose policy is `off`: never asks the cache.
  const off: RoundTarget = {
    name: 'chainproxy passthrough, policy off',
    url: proxy.url,
    pid,
    sample: () => '/off/tx/abc',
  };
  const base = values.baseline === undefined ? null : await baselineProxy(values.baseline, backendUrl);
  const direct = await runLoad({
    url: backendUrl,
    path: '/api/tx/abc',
    connections: opts.connections,
    duration: opts.durationS,
  });
  const bypass = (await getRaw(`${proxy.url}/api/tx/abc`)).headers['x-cache'] ?? '(none)';
  const streamed = await interleaved([lib, ours, off, ...(base ? [base] : [])], opts);

  // (2) a passthrough HIT against an API memory hit of the same bytes
  const head = JSON.parse((await getRaw(`${proxy.url}/block/max`)).body.toString()) as { data: { height: number } };
  const apiPath = `/block/detail?h=${Math.floor(head.data.height) - 100}`;
  await getRaw(proxy.url + apiPath);
  const apiHit = await getRaw(proxy.url + apiPath);
  const apiFile = join(dir, 'api-hit.json');
  writeFileSync(apiFile, apiHit.body);
  await backend('explorer-backend', explorerPort, apiFile, 'application/json; charset=utf-8');
  let stamp = Date.now();
  const ptPath = (): string => `/explorer/block/list?page_size=40&timestamp=${++stamp}`;
  await getRaw(proxy.url + ptPath());
  const ptHit = await getRaw(proxy.url + ptPath());
  const hits = await interleaved(
    [
      { name: 'API memory hit', url: proxy.url, pid, sample: () => apiPath },
      { name: 'passthrough HIT', url: proxy.url, pid, sample: ptPath },
    ],
    opts,
  );
  const ptAfter = (await getRaw(proxy.url + ptPath())).headers['x-cache'];

  const errors = (rs: readonly Round[]): number => rs.reduce((a, r) => a + r.non2xx + r.errors, 0);
  const row = (name: string, rs: readonly Round[]): string => {
    const c = combine(rs);
    const cpu = median(rs.map((r) => r.cpuUs));
    const cpuText = Number.isNaN(cpu) ? '' : cpu.toFixed(1);
    return `| ${name} | ${Math.round(c.rps)} | ${c.p50} | ${c.p99} | ${errors(rs)} | ${cpuText} |`;
  };
  const ratio = (a: readonly Round[], b: readonly Round[], what: 'rps' | 'cpuUs'): string => {
    const r = ratioOf(a, b, (x) => x[what]);
    return `${r.median.toFixed(2)} (per round ${r.perRound.map((x) => x.toFixed(2)).join(' ')})`;
  };
  const s = (name: string): Round[] => streamed.get(name) ?? [];
  const h = (name: string): Round[] => hits.get(name)!;
  const cpu = cpus();
  const head2 =
    '| target | req/s (max) | p50 ms | p99 ms | errors | server CPU µs/req (median) |\n|---|---|---|---|---|---|';
  const report = [
    `# Passthrough (${new Date().toISOString()})`,
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `Node ${process.version}. Command: \`npx tsx bench/passthrough.ts --duration ${opts.durationS} ` +
      `--connections ${opts.connections} --rounds ${opts.rounds} --rate ${opts.rate}` +
      `${base ? ' --baseline <checkout>' : ''}\`. ${opts.rounds} interleaved rounds; ` +
      `CPU at ${opts.rate} req/s offered.`,
    '',
    `## Uncacheable passthrough (2 KiB body, X-Cache ${bypass}; backend directly ${Math.round(direct.rps)} req/s)`,
    '',
    head2,
    ...[lib, ours, off, ...(base ? [base] : [])].map((t) => row(t.name, s(t.name))),
    '',
    `- chainproxy / bare library: req/s ${ratio(s(ours.name), s(lib.name), 'rps')}; ` +
      `CPU ${ratio(s(ours.name), s(lib.name), 'cpuUs')}`,
    ...(base
      ? [
          `- chainproxy / baseline checkout: req/s ${ratio(s(ours.name), s(base.name), 'rps')}; ` +
            `CPU ${ratio(s(ours.name), s(base.name), 'cpuUs')}`,
          `- chainproxy, policy off / baseline checkout: req/s ${ratio(s(off.name), s(base.name), 'rps')}; ` +
            `CPU ${ratio(s(off.name), s(base.name), 'cpuUs')}`,
        ]
      : []),
    '',
    `## Passthrough HIT against API memory hit (${apiHit.body.length} B body both)`,
    '',
    `X-Cache: API ${apiHit.headers['x-cache']}, passthrough ${ptHit.headers['x-cache']} (after the rounds ${ptAfter}).`,
    '',
    head2,
    row('API memory hit', h('API memory hit')),
    row('passthrough HIT', h('passthrough HIT')),
    '',
    `- passthrough HIT / API memory hit: CPU ${ratio(h('passthrough HIT'), h('API memory hit'), 'cpuUs')}, ` +
      `target <= 1.2; req/s ${ratio(h('passthrough HIT'), h('API memory hit'), 'rps')}`,
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'bench/results/passthrough.md'), report);
  process.stdout.write(report);
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => void stopAll());
