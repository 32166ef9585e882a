/**
 * chainproxy as an operator runs it, in its own process: `node <entry>`
 * (src/main.ts, or the launcher src/bin/chainproxy.ts, as compiled for the
 * tests by test/helpers/test-build.ts) with only the given environment, its
 * JSON log lines and stderr collected.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import type { Stream } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { EventEmitter } from 'node:events';
import { untilEmitted } from '../helpers/until.js';
import { built } from '../helpers/test-build.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = built('src/main.ts');
export const LAUNCHER = built('src/bin/chainproxy.ts');

export interface Proc {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  stdout: () => string;
  stderr: () => string;
  /** Exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Resolves once `holds` does, checked on each output chunk and on exit; fails after max(ms, 20 s). */
  until(holds: () => boolean, what: string, timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  args?: string[];
  entry?: string;
  /** Standard output of the process: 'pipe' (read by the test) or a stream/fd of the test's choosing. */
  stdout?: 'pipe' | Stream | number;
}

/** Starts the process from inside a test; it is killed when the test ends, if still running. */
export function startProc(env: Record<string, string>, opts: StartOptions = {}): Proc {
  const child = spawn(process.execPath, [opts.entry ?? MAIN, ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  // Told after each chunk of output is taken in, and on exit.
  const news = new EventEmitter();
  let out = '';
  let buf = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
    news.emit('news');
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    news.emit('news');
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
      news.emit('news');
    }),
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const until = (holds: () => boolean, what: string, timeoutMs?: number): Promise<void> =>
    untilEmitted(news, 'news', holds, what, timeoutMs);
  return { child, lines, stdout: () => out, stderr: () => err, exited, until };
}

/** The `chainproxy listening` log line, once written. */
export async function listening(p: Proc, timeoutMs = 90_000): Promise<Record<string, unknown>> {
  await p.until(
    () => p.lines.some((l) => l['msg'] === 'chainproxy listening') || p.child.exitCode !== null,
    'the listening log line',
    timeoutMs,
  );
  const line = p.lines.find((l) => l['msg'] === 'chainproxy listening');
  if (line === undefined) throw new Error(`exited ${p.child.exitCode} before listening; stderr:\n${p.stderr()}`);
  return line;
}

/** Standard error once the start-up line for humans (written after the listening log line) is in. */
export async function withStartupLine(p: Proc, timeoutMs = 90_000): Promise<string> {
  await p.until(
    () => /is serving the API at .*\n/.test(p.stderr()) || p.child.exitCode !== null,
    'the start-up line',
    timeoutMs,
  );
  return p.stderr();
}

/** Whether something accepts TCP connections at `url`. */
export async function accepts(url: string): Promise<boolean> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const s = createConnection({ port: Number(port), host: hostname });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * The `heapLimitMiB` a server logs when node runs with `flags`: V8's limit
 * adds the young generation, whose default size depends on the Node.js line
 * (48 MiB on 20 and 22, 192 on 24), so it is asked of this very node.
 */
export function heapLimitFor(flags: readonly string[]): number {
  const out = execFileSync(
    process.execPath,
    [...flags, '-p', 'Math.round(require("node:v8").getHeapStatistics().heap_size_limit / 2 ** 20)'],
    { encoding: 'utf8' },
  );
  return Number(out.trim());
}
