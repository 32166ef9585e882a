/**
 * A flood of open-and-close /stream/activity connections against the shipped
 * entry point (`node dist/bin/chainproxy.js`, built-in simulator, TRUST_PROXY
 * loopback): `--clients` addresses (X-Forwarded-For), each opening streams
 * that watch 100 addresses never watched before and closing them as soon as
 * the answer's head arrives, each paced to its own rate limit (RATE_LIMIT_MAX
 * per minute), for `--seconds`. Meanwhile a bystander asks /block/max every
 * 200 ms and keeps one activity stream open. Every second: the server's RSS
 * (VmRSS), heap and watch gauges. Reports the peak against the documented
 * bound and whether the process and the bystander lived.
 *
 *   npx tsx bench/watch-flood.ts [--clients 100] [--seconds 60] [--cache 32MiB]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { normalAddress } from '../src/sim/ids.js';
import { ROOT, freePort, sleep } from './lib/proc.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '60' },
    cache: { type: 'string', default: '32MiB' },
  },
});
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const RATE_LIMIT_MAX = 600;

let counter = 0;
const fresh = (n: number): string[] => Array.from({ length: n }, () => normalAddress(7, counter++));

/** Opens a stream and closes it once the status line is in: the status, or 0 on a failure. */
function openAndClose(port: number, ip: string, watch: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    let text = '';
    const done = (status: number): void => {
      s.destroy();
      resolve(status);
    };
    s.setTimeout(10_000, () => done(0));
    s.on('connect', () =>
      s.write(
        `GET /stream/activity?${watch.map((a) => `address=${a}`).join('&')} ` +
          `HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${ip}\r\n\r\n`,
      ),
    );
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m !== null) done(Number(m[1]));
    });
    s.on('error', () => done(0));
  });
}

function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
}

async function metrics(base: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line === '') continue;
      const i = line.lastIndexOf(' ');
      out.set(line.slice(0, i), Number(line.slice(i + 1)));
    }
  } catch {
    // an unanswered scrape shows as missing values
  }
  return out;
}

async function main(): Promise<void> {
  const built = spawn(process.execPath, ['scripts/ensure-built.mjs'], { cwd: ROOT, stdio: 'inherit' });
  await new Promise((r) => built.once('exit', r));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    TRUST_PROXY: '127.0.0.1',
    CACHE_MAX_BYTES: values.cache,
    SIM_BLOCK_INTERVAL_MS: '2000',
    LOG_LEVEL: 'info',
    ACCESS_LOG: 'off',
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
  };
  const child = spawn(process.execPath, ['dist/bin/chainproxy.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let exitCode: number | null | undefined;
  child.once('exit', (code, signal) => (exitCode = code ?? (signal === null ? null : -1)));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  let listening: Record<string, unknown> | undefined;
  while (listening === undefined) {
    const line = out.split('\n').find((l) => l.includes('"msg":"chainproxy listening"'));
    if (line !== undefined) listening = JSON.parse(line) as Record<string, unknown>;
    else if (exitCode !== undefined) throw new Error(`server exited ${exitCode}`);
    else await sleep(20);
  }
  const pid = Number(listening['pid']);
  const heapLimitMiB = Number(listening['heapLimitMiB']);
  while ((await fetch(`${base}/readyz`).catch(() => null))?.status !== 200) await sleep(100);
  const idleRss = rssMiB(pid);

  // The bystander: one activity stream held open, and /block/max every 200 ms.
  const held = await fetch(`${base}/stream/activity?address=${fresh(1)[0]}`, {
    headers: { 'x-forwarded-for': '10.2.0.2' },
  });
  const reader = held.body!.getReader();
  let heldBytes = 0;
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) break;
      heldBytes += r.value?.length ?? 0;
    }
  })();
  const polls = { ok: 0, failed: 0, ms: [] as number[] };
  const end = Date.now() + SECONDS * 1000;
  const poller = (async () => {
    while (Date.now() < end) {
      const t = performance.now();
      try {
        const r = await fetch(`${base}/block/max`, {
          headers: { 'x-forwarded-for': '10.2.0.1' },
          signal: AbortSignal.timeout(5000),
        });
        await r.arrayBuffer();
        if (r.status === 200) polls.ok++;
        else polls.failed++;
      } catch {
        polls.failed++;
      }
      polls.ms.push(performance.now() - t);
      await sleep(200);
    }
  })();

  const statuses = new Map<number, number>();
  const perClientGapMs = 60_000 / RATE_LIMIT_MAX;
  const workers = Array.from({ length: CLIENTS }, async (_, i) => {
    const ip = `10.1.${i >> 8}.${(i & 255) + 1}`;
    let next = performance.now();
    while (Date.now() < end && exitCode === undefined) {
      const status = await openAndClose(port, ip, fresh(100));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      next += perClientGapMs;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
    }
  });

  const samples: { t: number; rss: number; heap: number; watchBytes: number; lingering: number }[] = [];
  const started = Date.now();
  const sampler = (async () => {
    while (Date.now() < end && exitCode === undefined) {
      const m = await metrics(base);
      samples.push({
        t: Math.round((Date.now() - started) / 1000),
        rss: rssMiB(pid),
        heap: (m.get('nodejs_heap_size_used_bytes') ?? NaN) / 2 ** 20,
        watchBytes: (m.get('chainproxy_activity_watch_bytes') ?? NaN) / 2 ** 20,
        lingering: m.get('chainproxy_activity_watched_entities{state="lingering"}') ?? NaN,
      });
      await sleep(1000);
    }
  })();
  await Promise.all([...workers, poller, sampler]);
  const final = await metrics(base);
  const alive = exitCode === undefined && (await fetch(`${base}/healthz`).catch(() => null))?.status === 200;
  const heldOpen = !(await Promise.race([
    reader.closed.then(
      () => true,
      () => true,
    ),
    sleep(10).then(() => false),
  ]));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));

  const sorted = [...polls.ms].sort((a, b) => a - b);
  const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  const peak = (k: 'rss' | 'heap' | 'watchBytes' | 'lingering'): number =>
    Math.max(...samples.map((s) => s[k]).filter((x) => Number.isFinite(x)));
  const opened = [...statuses.values()].reduce((a, b) => a + b, 0);
  const lines = [
    `watch flood: ${CLIENTS} client addresses opening and closing /stream/activity (100 new addresses each) for ` +
      `${SECONDS} s, node ${process.version}, CACHE_MAX_BYTES=${values.cache}, heap cap ${heapLimitMiB} MiB`,
    `requests: ${opened} (${(opened / SECONDS).toFixed(0)}/s) by ` +
      `status ${JSON.stringify(Object.fromEntries(statuses))}`,
    `server: alive ${alive}; RSS idle ${idleRss.toFixed(0)} MiB, peak ${peak('rss').toFixed(0)} ` +
      `MiB, last ${samples.at(-1)?.rss.toFixed(0)} MiB; heap peak ${peak('heap').toFixed(0)} MiB`,
    `watches: charged peak ${peak('watchBytes').toFixed(1)} MiB of ` +
      `${(Number(final.get('chainproxy_activity_watch_bytes') ?? NaN) / 2 ** 20).toFixed(1)} ` +
      `now; lingering peak ${peak('lingering')}; forgotten client ` +
      `${final.get('chainproxy_activity_lingering_forgotten_total{reason="client"}')}, budget ` +
      `${final.get('chainproxy_activity_lingering_forgotten_total{reason="budget"}')}; refused ` +
      `watch_budget ${final.get('chainproxy_stream_refused_total{reason="watch_budget"}')}`,
    `bystander: /block/max ${polls.ok} ok, ${polls.failed} failed, p50 ` +
      `${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${q(1).toFixed(1)} ms; its ` +
      `activity stream still open: ${heldOpen} (${heldBytes} bytes received)`,
    '',
    't(s)  RSS MiB  heap MiB  watches MiB  lingering',
    ...samples
      .filter((_, i) => i % 5 === 0 || i === samples.length - 1)
      .map(
        (s) =>
          `${String(s.t).padStart(4)}  ${s.rss.toFixed(0).padStart(7)}  ${s.heap.toFixed(0).padStart(8)}  ` +
          `${s.watchBytes.toFixed(1).padStart(11)}  ${String(s.lingering).padStart(9)}`,
      ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!alive) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
