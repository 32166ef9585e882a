/**
 * Start-up time and idle memory: the compiled build (`node dist/bin/chainproxy.js`,
 * what the package's bin and `npm start` run) against the TypeScript start through
 * tsx (`node --import tsx src/main.ts`, one process; the former `npm start` also
 * had the tsx CLI's parent process on top).
 *
 *   npm run bench:startup [-- --runs N]
 *
 * Each run spawns the proxy in front of one simulator process and measures the
 * time from spawn to the first `/readyz` 200 (polled every 5 ms), then the
 * process's resident set size after 2 s idle (VmRSS from /proc, Linux only).
 * Runs alternate between the two variants; the table shows medians and ratios
 * (compiled / tsx), which is what a shared machine can compare.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { median } from './lib/context.js';
import { ROOT, freePort, sleep } from './lib/proc.js';
import { startSim } from './lib/sim.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Math.max(1, Number(values.runs) || 5);
const IDLE_MS = 2000;

interface Variant {
  name: string;
  args: string[];
}

const VARIANTS: Variant[] = [
  { name: 'compiled: node dist/bin/chainproxy.js', args: ['dist/bin/chainproxy.js'] },
  { name: 'tsx: node --import tsx src/main.ts', args: ['--import', 'tsx', 'src/main.ts'] },
];

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function readyz(url: string): Promise<boolean> {
  try {
    const r = await request(`${url}/readyz`, { headersTimeout: 1000, bodyTimeout: 1000 });
    await r.body.dump();
    return r.statusCode === 200;
  } catch {
    return false;
  }
}

async function once(v: Variant, upstream: string): Promise<{ readyMs: number; rss: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, v.args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      UPSTREAM_URLS: upstream,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const url = `http://127.0.0.1:${port}`;
    while (!(await readyz(url))) {
      if (child.exitCode !== null) throw new Error(`${v.name} exited with ${child.exitCode}`);
      if (performance.now() - started > 30_000) throw new Error(`${v.name}: not ready after 30 s`);
      await sleep(5);
    }
    const readyMs = performance.now() - started;
    await sleep(IDLE_MS);
    return { readyMs, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const built = spawn(process.execPath, ['scripts/ensure-built.mjs'], { cwd: ROOT, stdio: 'inherit' });
  await new Promise((r) => built.once('exit', r));
  const sim = await startSim({ blockIntervalMs: 15_000 });
  const results = new Map<string, { readyMs: number[]; rss: number[] }>(
    VARIANTS.map((v) => [v.name, { readyMs: [], rss: [] }]),
  );
  try {
    for (const v of VARIANTS) await once(v, sim.url); // warm-up: file cache, tsx's transform cache
    for (let i = 0; i < RUNS; i++) {
      for (const v of i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const r = await once(v, sim.url);
        results.get(v.name)!.readyMs.push(r.readyMs);
        results.get(v.name)!.rss.push(r.rss);
      }
    }
  } finally {
    await sim.close();
  }
  const rows = VARIANTS.map((v) => {
    const r = results.get(v.name)!;
    return { name: v.name, ready: median(r.readyMs), readyMin: Math.min(...r.readyMs), rss: median(r.rss) };
  });
  const [c, t] = rows as [(typeof rows)[0], (typeof rows)[0]];
  const lines = [
    `start-up to /readyz 200 and idle RSS after ${IDLE_MS / 1000} s, ` +
      `median of ${RUNS} runs each (node ${process.version})`,
    '',
    '| start | to /readyz 200 (median, min) | idle RSS (median) |',
    '|---|---|---|',
    ...rows.map(
      (r) => `| ${r.name} | ${r.ready.toFixed(0)} ms, ${r.readyMin.toFixed(0)} ms | ${r.rss.toFixed(1)} MiB |`,
    ),
    `| ratio compiled / tsx | ${(c.ready / t.ready).toFixed(2)} | ${(c.rss / t.rss).toFixed(2)} |`,
    '',
    ...VARIANTS.map(
      (v) =>
        `${v.name}: ${results
          .get(v.name)!
          .readyMs.map((x) => x.toFixed(0))
          .join(', ')} ms`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
