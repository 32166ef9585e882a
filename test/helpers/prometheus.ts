/**
 * A real Prometheus server for tests (Debian's `prometheus`, never a mock):
 * started on a free port with a temporary TSDB directory and a generated
 * config scraping one target every second.
 *
 *   query(expr)              instant query through /api/v1/query
 *   waitForScrapes(n)        until the target has been scraped n times and is up
 *   stop()                   SIGTERM, wait for exit, remove the temp dir
 *
 * Missing binary: `prometheusAvailable()` throws when CI=true (CI must fail
 * loudly) and otherwise warns loudly and returns false, so test files use
 * `describePrometheus()` (describe or describe.skip).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe } from 'vitest';
import { freePort } from './redis-server.js';

/** One series of an instant-query answer. */
interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

interface QueryResult {
  resultType: 'vector' | 'scalar' | 'matrix' | 'string';
  /** Vector answers: the series; a scalar answer is wrapped as one series without labels. */
  series: PromSample[];
}

export interface PrometheusServer {
  readonly url: string;
  readonly port: number;
  readonly job: string;
  query(expr: string): Promise<QueryResult>;
  /** Resolves once the target has at least `count` scrapes in the TSDB and its last one succeeded. */
  waitForScrapes(count: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface StartPrometheusOptions {
  /** `host:port` of the scrape target. */
  target: string;
  metricsPath?: string;
  /** Job label (the dashboard's process panels filter on job="chainproxy"). */
  job?: string;
  scrapeIntervalSeconds?: number;
  /**
   * A config of the test's own instead of the generated one: files by
   * path relative to the TSDB's temp dir, and which one is the config.
   */
  config?: { file: string; files: Record<string, string> };
}

function findBinary(name: string, envVar: string): string | null {
  const explicit = process.env[envVar];
  if (explicit !== undefined && explicit !== '') return existsSync(explicit) ? explicit : null;
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin']) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Path of the prometheus binary (PROMETHEUS_BIN overrides), or null. */
function findPrometheus(): string | null {
  return findBinary('prometheus', 'PROMETHEUS_BIN');
}

/** Path of the promtool binary (PROMTOOL_BIN overrides), or null. */
function findPromtool(): string | null {
  return findBinary('promtool', 'PROMTOOL_BIN');
}

function available(bin: string | null, what: string): boolean {
  if (bin !== null) return true;
  const msg = `${what} binary not found (apt-get install prometheus, or set ${what.toUpperCase()}_BIN)`;
  if (process.env.CI === 'true') throw new Error(`${msg}: these tests cannot be skipped in CI`);
  console.warn(`\n!!! ${msg}: SKIPPING the tests that need it !!!\n`);
  return false;
}

function prometheusAvailable(): boolean {
  return available(findPrometheus(), 'prometheus');
}

export function promtoolAvailable(): boolean {
  return available(findPromtool(), 'promtool');
}

export function describePrometheus(): typeof describe | typeof describe.skip {
  return prometheusAvailable() ? describe : describe.skip;
}

export function describePromtool(): typeof describe | typeof describe.skip {
  return promtoolAvailable() ? describe : describe.skip;
}

/** Runs promtool with the given args and stdin; never throws on a non-zero exit. */
export function runPromtool(args: string[], stdin?: string): { status: number | null; stdout: string; stderr: string } {
  const bin = findPromtool();
  if (bin === null) throw new Error('promtool binary not found');
  const res = spawnSync(bin, args, { input: stdin ?? '', encoding: 'utf8', timeout: 20_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface ApiAnswer {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: QueryResult['resultType']; result: unknown };
}

export async function startPrometheus(opts: StartPrometheusOptions): Promise<PrometheusServer> {
  const bin = findPrometheus();
  if (bin === null) throw new Error('prometheus binary not found');
  const job = opts.job ?? 'chainproxy';
  const interval = opts.scrapeIntervalSeconds ?? 1;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-prometheus-'));
  const configFile = join(dir, opts.config?.file ?? 'prometheus.yml');
  for (const [rel, text] of Object.entries(opts.config?.files ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  if (opts.config === undefined) {
    writeFileSync(
      configFile,
      [
        'global:',
        `  scrape_interval: ${interval}s`,
        `  scrape_timeout: ${interval}s`,
        `  evaluation_interval: ${interval}s`,
        'scrape_configs:',
        `  - job_name: ${JSON.stringify(job)}`,
        `    metrics_path: ${JSON.stringify(opts.metricsPath ?? '/metrics')}`,
        '    static_configs:',
        `      - targets: [${JSON.stringify(opts.target)}]`,
        '',
      ].join('\n'),
    );
  }
  const args = [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ];
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await waitExit(child);
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`);
    }
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus on port ${port} not ready: ${stderr}`);
    }
    await sleep(50);
  }

  const query = async (expr: string): Promise<QueryResult> => {
    const res = await fetch(`${url}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: expr }).toString(),
    });
    const body = (await res.json()) as ApiAnswer;
    if (body.status !== 'success' || body.data === undefined)
      throw new Error(`query failed: ${body.error ?? res.status}: ${expr}`);
    const { resultType, result } = body.data;
    if (resultType === 'vector') return { resultType, series: result as PromSample[] };
    if (resultType === 'scalar') return { resultType, series: [{ metric: {}, value: result as [number, string] }] };
    throw new Error(`unexpected result type ${resultType} for ${expr}`);
  };

  return {
    url,
    port,
    job,
    query,
    async waitForScrapes(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      const selector = `up{job=${JSON.stringify(job)}}`;
      const expr = `count_over_time(${selector}[10m]) >= ${count} and ${selector} == 1`;
      for (;;) {
        const r = await query(expr);
        if (r.series.length > 0) return;
        if (Date.now() > until)
          throw new Error(`target ${opts.target} not scraped ${count} times within ${timeoutMs} ms: ${stderr}`);
        await sleep(250);
      }
    },
    stop,
  };
}
