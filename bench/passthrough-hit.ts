/**
 * A passthrough HIT against an API memory hit: CPU time per request of one
 * proxy process (utime + stime from /proc) serving a 2 KiB passthrough answer
 * kept by `PASSTHROUGH_CACHE` (one URL, and the same with a `timestamp=`
 * cache-buster that changes on every request, PASSTHROUGH_IGNORE_PARAMS) and a
 * cached final `block/detail`, all hits answered before the router, at the
 * same offered load, in interleaved rounds. Target: a passthrough HIT costs at
 * most 1.2 x the API hit (median ratio).
 *
 *   npx tsx bench/passthrough-hit.ts [--rounds N] [--rate R] [--duration S]
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { NODE_TSX, freePort, spawnChild, stopAll, waitForHttp } from './lib/proc.js';
import { startProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '4' },
  },
});

/** CPU seconds (user + system) a process has used so far (USER_HZ 100). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 0.01;
}

const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-bench-pt-hit-'));
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, Buffer.alloc(2048, 'x'));
  const port = await freePort();
  const backend = spawnChild('backend', NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-server.ts'], {
    BARE_PORT: String(port),
    BARE_BODY_FILE: bodyFile,
    BARE_HEADERS: JSON.stringify({ 'content-type': 'application/json' }),
  });
  const backendUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${backendUrl}/api/x`, backend);
  const proxy = await startProxyProc([], {
    PASSTHROUGH: `/api=${backendUrl}`,
    PASSTHROUGH_CACHE: '/api=60m',
    PASSTHROUGH_IGNORE_PARAMS: 'timestamp',
    UPSTREAM_URLS: '',
    SIM_BLOCK_INTERVAL_MS: '3600000',
  });
  const pid = proxy.child.proc.pid ?? 0;
  let n = 0;
  const busted = (): string => `/api/tx/abc?timestamp=${1_700_000_000_000 + n++}`;
  const paths = { api: '/block/detail?h=1', passthrough: '/api/tx/abc', busted: '/api/tx/abc?timestamp=1' };
  for (const path of Object.values(paths)) {
    await runLoad({ url: proxy.url, path, connections: 10, duration: 2 });
    const r = await fetch(`${proxy.url}${path}`);
    await r.arrayBuffer();
    if (r.headers.get('x-cache') !== 'HIT') throw new Error(`${path}: not a hit (${r.headers.get('x-cache')})`);
  }
  const us: Record<keyof typeof paths, number[]> = { api: [], passthrough: [], busted: [] };
  const ratios: number[] = [];
  const bustedRatios: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = Object.entries(paths) as Array<[keyof typeof paths, string]>;
    for (const [name, path] of round % 2 === 0 ? order : order.reverse()) {
      const before = cpuSeconds(pid);
      const r = await runLoad({
        url: proxy.url,
        ...(name === 'busted' ? { sample: busted } : { path }),
        connections: 10,
        duration: Number(values.duration),
        rate: Number(values.rate),
      });
      us[name].push(((cpuSeconds(pid) - before) / Math.max(r.total, 1)) * 1e6);
    }
    ratios.push(us.passthrough.at(-1)! / us.api.at(-1)!);
    bustedRatios.push(us.busted.at(-1)! / us.api.at(-1)!);
  }
  const fmt = (a: readonly number[]): string => a.map((v) => v.toFixed(1)).join(', ');
  process.stdout.write(
    [
      `${values.rounds} rounds, ${values.rate} req/s offered for ${values.duration} s each, 10 connections`,
      `API memory hit, CPU µs/req: ${fmt(us.api)}`,
      `passthrough HIT, CPU µs/req: ${fmt(us.passthrough)}`,
      `passthrough HIT with a new timestamp= each, CPU µs/req: ${fmt(us.busted)}`,
      `median ratio passthrough / API: ${median(ratios).toFixed(2)}, ` +
        `with timestamp= ${median(bustedRatios).toFixed(2)} (target <= 1.2)`,
      '',
    ].join('\n'),
  );
  await stopAll();
}

void main();
