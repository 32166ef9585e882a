/**
 * Passthrough cost: the same 2 KiB answer fetched from a bare Fastify backend
 * directly, through a bare @fastify/http-proxy server (the library alone) and
 * through a chainproxy passthrough route, each server in its own process.
 * Reports throughput ratios measured in this run and CPU time per proxied
 * request of both proxies (from /proc, utime + stime).
 *
 *   npx tsx bench/passthrough.ts [--duration S] [--connections N]
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad, type LoadResult } from './lib/load.js';
import { NODE_TSX, freePort, spawnChild, stopAll, waitForHttp } from './lib/proc.js';
import { startProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const TICK_S = 0.01; // USER_HZ: 100 on Linux

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_S;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-bench-pt-'));
  const bodyFile = join(dir, 'body.bin');
  writeFileSync(bodyFile, Buffer.alloc(2048, 'x'));
  const backendPort = await freePort();
  const backend = spawnChild('backend', NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-server.ts'], {
    BARE_PORT: String(backendPort),
    BARE_BODY_FILE: bodyFile,
    BARE_HEADERS: JSON.stringify({ 'content-type': 'application/octet-stream' }),
  });
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  await waitForHttp(`${backendUrl}/api/x`, backend);
  const barePort = await freePort();
  const bare = spawnChild('bare-proxy', NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-proxy-server.ts'], {
    BARE_PORT: String(barePort),
    BARE_UPSTREAM: backendUrl,
  });
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHttp(`${bareUrl}/api/x`, bare);
  const proxy = await startProxyProc([], {
    PASSTHROUGH: `/api=${backendUrl}`,
    UPSTREAM_URLS: '',
    SIM_BLOCK_INTERVAL_MS: '3600000',
  });
  const pid = proxy.child.proc.pid ?? 0;

  const load = (url: string): Promise<LoadResult> => runLoad({ url, path: '/api/tx/abc', connections, duration });
  const measured = async (url: string, p: number): Promise<{ r: LoadResult; cpuUs: number }> => {
    const c0 = cpuSeconds(p);
    const r = await load(url);
    return { r, cpuUs: ((cpuSeconds(p) - c0) / Math.max(r.total, 1)) * 1e6 };
  };
  for (const url of [backendUrl, bareUrl, proxy.url]) await load(url); // warm-up
  const direct = await load(backendUrl);
  const lib = await measured(bareUrl, bare.proc.pid ?? 0);
  const through = await measured(proxy.url, pid);

  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} |`;
  process.stdout.write(
    [
      `${connections} connections, ${duration} s each, 2 KiB body`,
      '| target | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|',
      row('backend directly', direct),
      row('bare @fastify/http-proxy', lib.r),
      row('chainproxy passthrough', through.r),
      '',
      `throughput ratio chainproxy passthrough / bare @fastify/http-proxy: ${(through.r.rps / lib.r.rps).toFixed(2)}`,
      `throughput ratio chainproxy passthrough / backend directly: ${(through.r.rps / direct.rps).toFixed(2)}`,
      `CPU per proxied request: bare @fastify/http-proxy ${lib.cpuUs.toFixed(0)} µs, ` +
        `chainproxy passthrough ${through.cpuUs.toFixed(0)} µs`,
      '',
    ].join('\n'),
  );
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => void stopAll());
