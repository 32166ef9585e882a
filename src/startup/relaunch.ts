/**
 * The shipped entry points (`npm start`, `npx chainproxy`, the `chainproxy`
 * bin) run the server under the heap cap derived from CACHE_MAX_BYTES and
 * STREAM_ACTIVITY_WATCH_BYTES, and, when tracing is configured on Node.js 22,
 * with request context on AsyncContextFrame (context-frame.ts): node cannot
 * change either once started, so this process starts the server
 * as a child with the flag and stays as a thin parent: it forwards
 * SIGTERM/SIGINT/SIGHUP, shares its stdio, and exits with the child's code.
 * A child ended by a signal (an out-of-memory kill is a SIGKILL) is said in
 * one line, and this process exits 128 + the signal's number, as a shell does.
 * The child drains on its own if this parent dies (its IPC channel closes).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from '../config/cli.js';
import { loadConfig } from '../config/load.js';
import { tracingConfigured } from '../tracing/tracing.js';
import { contextFrameFlags } from './context-frame.js';
import { heapCapFlags, operatorHeapCap } from './heap-cap.js';

const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** The flags to relaunch with, or null when the server should run in this process. */
function wantedFlags(argv: readonly string[]): string[] | null {
  // --help, --version, bad flags and bad settings are answered by main in this process.
  if (parseArgs(argv).kind !== 'run') return null;
  const { execArgv, env } = process;
  const frame = contextFrameFlags(tracingConfigured(env), execArgv, env['NODE_OPTIONS']);
  if (operatorHeapCap(execArgv, env['NODE_OPTIONS'])) return frame.length === 0 ? null : frame;
  try {
    const config = loadConfig(env, argv);
    return [
      ...heapCapFlags(config.cacheMaxBytes, config.stream.activityWatchBytes, execArgv, env['NODE_OPTIONS']),
      ...frame,
    ];
  } catch {
    return null;
  }
}

/** What the launcher says when its server process was ended by `signal`. */
function signalDeathLine(pid: number | undefined, signal: NodeJS.Signals, status: number): string {
  const why =
    signal === 'SIGKILL'
      ? ' A SIGKILL nobody sent is most often the out-of-memory killer (see dmesg, and the memory ' +
        'limit against CACHE_MAX_BYTES).'
      : '';
  return `the server process (pid ${pid ?? '?'}) was killed by ${signal}; exiting ${status}.${why}`;
}

/** Starts the server as a capped child and returns true, or returns false (run it here). */
export function relaunchWithHeapCap(): boolean {
  const argv = process.argv.slice(2);
  const flags = wantedFlags(argv);
  if (flags === null) return false;
  const main = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../main.ts' : '../main.js', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, '--enable-source-maps', ...flags, main, ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  for (const signal of FORWARDED) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    const status = 128 + (constants.signals[signal] ?? 0);
    process.stderr.write(`chainproxy: ${signalDeathLine(child.pid, signal, status)}\n`);
    process.exit(status);
  });
  child.on('error', (err) => {
    process.stderr.write(`chainproxy: cannot start the server process: ${err.message}\n`);
    process.exit(1);
  });
  return true;
}
