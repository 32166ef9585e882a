/**
 * (m) Memory bound under a distinct-key flood: a proxy with
 * CACHE_MAX_BYTES=32MiB gets floods of (1) unknown block hashes (negative
 * entries, 1 s), (2) unknown transaction hashes with negative entries kept 10
 * minutes (CONFIG_FILE policy: small long-lived entries, the worst case for
 * the bound) and (3) distinct final blocks (kept a day, compressed variants);
 * (2) and (3) fill the store up to its bound. The same floods run
 * against a proxy with a 1 MiB cache first: its RSS is the fixed overhead
 * (runtime, sockets, compression buffers under that load). Both run
 * through the shipped entry point, `npx chainproxy` (dist/ built first),
 * with no heap flag of ours: the entry point derives the cap from
 * CACHE_MAX_BYTES. RSS is the server process's (the launcher above it is
 * constant). Reported: RSS (settled and peak) and heap of both, and
 * (RSS at 32 MiB - RSS at 1 MiB) / 32 MiB, goal <= 1.5.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ctx, Scenario } from '../lib/context.js';
import { runLoad } from '../lib/load.js';
import { startSim } from '../lib/sim.js';
import { ROOT, cpuSeconds, freePort, spawnChild, waitForHttp } from '../lib/proc.js';

const MIB = 1024 * 1024;
const BOUND = 32 * MIB;
const CONNECTIONS = 32;
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** `npx chainproxy` as an operator runs it; the server's pid and heap limit from its listening line. */
async function startShipped(
  simUrl: string,
  env: Record<string, string>,
  name: string,
): Promise<{ url: string; pid: number; heapLimitMiB: number; close(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnChild(name, NPX, ['--no-install', 'chainproxy'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URLS: simUrl,
    PUBLIC_BASE_URL: url,
    LOG_LEVEL: 'info',
    ACCESS_LOG: 'off',
    RATE_LIMIT_ENABLED: 'false',
    NODE_ENV: 'production',
    NODE_OPTIONS: '',
    npm_config_update_notifier: 'false',
    ...env,
  });
  let out = '';
  let listening: { pid: number; heapLimitMiB: number } | null = null;
  child.proc.stdout?.on('data', (d: Buffer) => {
    if (listening !== null) return;
    out += d.toString();
    const line = out.split('\n').find((l) => l.includes('"msg":"chainproxy listening"'));
    if (line !== undefined) listening = JSON.parse(line) as { pid: number; heapLimitMiB: number };
  });
  await waitForHttp(`${url}/healthz`, child);
  await waitForHttp(`${url}/readyz`, child, 8000).catch(() => undefined);
  const server = listening as { pid: number; heapLimitMiB: number } | null;
  if (server === null) throw new Error(`${name}: no listening line\n${child.tail()}`);
  return {
    url,
    pid: server.pid,
    heapLimitMiB: server.heapLimitMiB,
    // npm exec runs the bin through a shell that does not pass signals on: stop the server itself.
    close: async () => {
      process.kill(server.pid, 'SIGTERM');
      await child.stop();
    },
  };
}

/** Resident set size of a process (Linux), bytes. */
function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m?.[1] !== undefined ? Number(m[1]) * 1024 : NaN;
}

/** User + system CPU time of a process (Linux), ms. */
export function cpuMsOf(pid: number): number {
  return (cpuSeconds(pid) ?? NaN) * 1000;
}

async function gauge(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface Reading {
  rss: number;
  heap: number;
  cached: number;
}

/** Runs both floods against a proxy with `cacheMaxBytes`; the readings after each. */
async function floodProxy(
  ctx: Ctx,
  simUrl: string,
  final: number,
  cacheMaxBytes: string,
): Promise<{
  heapLimitMiB: number;
  floods: Array<{
    name: string;
    after: Reading;
    peak: number;
    rps: number;
    p50: number;
    p99: number;
    total: number;
    cpuPerReq: number;
  }>;
}> {
  const proxy = await startShipped(
    simUrl,
    { CACHE_MAX_BYTES: cacheMaxBytes, METRICS_CACHE_MS: '0', CONFIG_FILE: policyFile() },
    `proxy-flood-${cacheMaxBytes}`,
  );
  try {
    const pid = proxy.pid;
    const reading = async (): Promise<Reading> => ({
      rss: rssOf(pid),
      heap: await gauge(proxy.url, 'nodejs_heap_size_used_bytes'),
      cached: await gauge(proxy.url, 'chainproxy_cache_bytes{tier="memory"}'),
    });
    let h = final - 100;
    const floods = [
      {
        name: 'unknown block hashes (negative, 1 s)',
        sample: () => `/block/detail?h=${randomBytes(32).toString('hex')}`,
      },
      {
        name: 'unknown tx hashes (negative, kept 10 min)',
        sample: () => `/tx/detail?hash=${randomBytes(32).toString('hex')}`,
      },
      { name: 'distinct final blocks (1 day)', sample: () => `/block/detail?h=${h--}` },
    ];
    const out = [];
    for (const f of floods) {
      const cpu0 = cpuMsOf(pid);
      let peak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 200);
      const r = await runLoad({ url: proxy.url, sample: f.sample, connections: CONNECTIONS, duration: ctx.d(25, 9) });
      clearInterval(sampler);
      const cpuPerReq = (cpuMsOf(pid) - cpu0) / Math.max(r.total, 1);
      // Settled: after some idle seconds V8's memory reducer has collected the flood's garbage.
      await new Promise((resolve) => setTimeout(resolve, ctx.d(12, 10) * 1000));
      out.push({
        name: f.name,
        after: await reading(),
        peak,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        total: r.total,
        cpuPerReq,
      });
    }
    return { heapLimitMiB: proxy.heapLimitMiB, floods: out };
  } finally {
    await proxy.close();
  }
}

/** Small long-lived entries, the worst case for the bound: unknown tx hashes kept 10 minutes. */
function policyFile(): string {
  const path = join(tmpdir(), `chainproxy-bench-flood-${process.pid}.json`);
  writeFileSync(path, JSON.stringify({ policies: { 'tx/detail': { negativeTtlMs: 600_000 } } }));
  return path;
}

const mib = (b: number): string => (b / MIB).toFixed(0);

export const flood: Scenario = {
  id: 'm',
  title: 'distinct-key flood, CACHE_MAX_BYTES=32MiB',
  async run(ctx: Ctx) {
    const built = spawnSync(process.execPath, ['scripts/ensure-built.mjs'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('m: building dist/ failed');
    const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-flood' });
    try {
      const final = (await sim.stats()).finalHeight;
      // The fixed overhead: the same floods against the smallest cache (1 MiB).
      const floorRun = await floodProxy(ctx, sim.url, final, '1MiB');
      const boundedRun = await floodProxy(ctx, sim.url, final, '32MiB');
      const floor = floorRun.floods;
      boundedRun.floods.forEach((b, i) => {
        const f = floor[i]!;
        const grown = b.after.rss - f.after.rss;
        ctx.rows.push({
          scenario: 'm flood 32MiB',
          target: b.name,
          rps: b.rps,
          p50: b.p50,
          p99: b.p99,
          hitRatio: null,
          upPer1000: null,
          note:
            `${b.total} distinct keys; RSS settled ${mib(b.after.rss)} MiB (1 MiB cache: ${mib(f.after.rss)}), ` +
            `peak ${mib(b.peak)} (${mib(f.peak)}), heap ${mib(b.after.heap)} MiB (${mib(f.after.heap)}), ` +
            `charged ${(b.after.cached / MIB).toFixed(1)} MiB; ${b.cpuPerReq.toFixed(3)} ms CPU/req`,
        });
        ctx.ratios.push({
          name: `m: RSS over the 1 MiB-cache run / bound (${b.name})`,
          value: grown / BOUND,
          goal: '<= 1.5',
          pass: grown <= 1.5 * BOUND,
          detail:
            `npx chainproxy, heap limit ${boundedRun.heapLimitMiB} MiB (1 MiB cache: ` +
            `${floorRun.heapLimitMiB}); settled RSS ${mib(f.after.rss)} → ${mib(b.after.rss)} MiB ` +
            `(peak ${mib(f.peak)} → ${mib(b.peak)}), heap ${mib(f.after.heap)} → ` +
            `${mib(b.after.heap)} MiB, charged ${(b.after.cached / MIB).toFixed(1)} MiB of 32`,
        });
      });
    } finally {
      await sim.close();
    }
  },
};
