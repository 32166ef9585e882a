/**
 * A real `redis-server` for tests: started on a free port with persistence off
 * in a temp dir, answered-PING before the promise resolves. Never a mock.
 *
 *   stop()          SIGTERM, wait for exit
 *   kill()          SIGKILL, wait for exit ("Redis crashed")
 *   restart()       start again on the same port (after stop/kill, or stops first)
 *   pause()/resume  SIGSTOP/SIGCONT: the socket accepts but nothing answers ("blackholed")
 *
 * Missing binary: `redisAvailable()` throws when CI=true (CI must fail loudly)
 * and otherwise warns loudly and returns false, so files use
 * `describeRedis = redisAvailable() ? describe : describe.skip`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** Path of the redis-server binary (REDIS_SERVER_BIN overrides), or null. */
export function findRedisServer(): string | null {
  const explicit = process.env.REDIS_SERVER_BIN;
  if (explicit !== undefined && explicit !== '') return existsSync(explicit) ? explicit : null;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** True when tests can run; throws in CI when the binary is missing; warns loudly otherwise. */
function redisAvailable(): boolean {
  if (findRedisServer() !== null) return true;
  const msg = 'redis-server binary not found (install redis-server or set REDIS_SERVER_BIN)';
  if (process.env.CI === 'true') throw new Error(`${msg}: Redis tests cannot be skipped in CI`);
  console.warn(`\n!!! ${msg}: SKIPPING the Redis tests !!!\n`);
  return false;
}

/** `describe` when redis-server is available, else `describe.skip` (see redisAvailable). */
export function describeRedis(): typeof describe | typeof describe.skip {
  return redisAvailable() ? describe : describe.skip;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket; resolves true on +PONG within timeoutMs. */
function ping(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ port, host: '127.0.0.1' });
    let buf = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG'));
    });
    sock.on('error', () => done(false));
  });
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(opts: { port?: number } = {}): Promise<RedisServer> {
  const bin = findRedisServer();
  if (bin === null) throw new Error('redis-server binary not found');
  let port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-redis-'));
  let child: ChildProcess | null = null;
  let stderr = '';

  const launch = async () => {
    stderr = '';
    mkdirSync(dir, { recursive: true });
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--protected-mode',
      'no',
      '--loglevel',
      'warning',
    ];
    // redis-server logs to stdout (a port already taken: "Address already in use").
    const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer): void => {
      stderr += d.toString();
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    child = proc;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode}): ${stderr}`);
      if (await ping(port, 200)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(`redis-server on port ${port} did not answer PING: ${stderr}`);
  };

  const signalAndWait = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (proc === null) return;
    child = null;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGCONT'); // a paused server cannot act on SIGTERM
      proc.kill(signal);
    }
    await waitExit(proc);
  };

  // A free port can be taken by another test's process before redis-server binds it:
  // without a port asked for, a start that fails tries another port (three tries).
  for (let tries = 1; ; tries++) {
    try {
      await launch();
      break;
    } catch (err) {
      if (opts.port !== undefined || tries >= 3) throw err;
      port = await freePort();
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await signalAndWait('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    async kill() {
      await signalAndWait('SIGKILL');
    },
    async restart() {
      await signalAndWait('SIGTERM');
      await launch();
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}
