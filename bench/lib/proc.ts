/**
 * Child processes for the bench: each server (simulator, proxy, bare route,
 * nginx, redis) runs in its own process so the load generator, the proxy and
 * the origin never share an event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { request } from 'undici';
import { readdirSync, readFileSync } from 'node:fs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** `node --import tsx <file>`: no tsx CLI wrapper process in between. */
export const NODE_TSX = [process.execPath, '--import', 'tsx'] as const;

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines of stdout+stderr (for error messages). */
  tail(): string;
  stop(): Promise<void>;
}

const live = new Set<Child>();

export function spawnChild(
  name: string,
  cmd: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Child {
  const proc = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  const keep = (d: Buffer): void => {
    buf = (buf + d.toString()).slice(-4000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  let exited = proc.exitCode !== null;
  const exit = new Promise<void>((r) =>
    proc.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const child: Child = {
    name,
    proc,
    tail: () => buf,
    stop: async () => {
      live.delete(child);
      if (exited) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(t);
    },
  };
  live.add(child);
  return child;
}

/** Stop every child still running (end of run, or on error / Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()));
}

/** Poll `url` until it answers with a status accepted by `ok` (default 2xx). */
export async function waitForHttp(
  url: string,
  child: Child,
  timeoutMs = 20_000,
  ok = (s: number) => s >= 200 && s < 300,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    if (child.proc.exitCode !== null)
      throw new Error(`${child.name} exited (${child.proc.exitCode}):\n${child.tail()}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (ok(r.status)) return;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    await sleep(100);
  }
  throw new Error(`${child.name}: ${url} not ready after ${timeoutMs} ms (${last})\n${child.tail()}`);
}

export async function getJson<T = unknown>(url: string, init?: RequestInit): Promise<T> {
  const r = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  if (!r.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

/** Raw GET with no extra request headers (fetch would add Accept-Encoding): what autocannon sends. */
export async function getRaw(url: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const r = await request(url, { headersTimeout: 10_000, bodyTimeout: 10_000 });
  const body = Buffer.from(await r.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: r.statusCode, headers, body };
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (seconds) used so far by a process: the sum over its threads of
 * the scheduler's run time (/proc/<pid>/task/<tid>/schedstat, nanoseconds);
 * where that is missing, user + system from /proc/<pid>/stat (fields 14 and
 * 15, 10 ms resolution). null where /proc is not available.
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  return runSeconds(pid) ?? tickSeconds(pid);
}

function runSeconds(pid: number): number | null {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
    }
    return Number.isFinite(ns) && ns > 0 ? ns / 1e9 : null;
  } catch {
    return null;
  }
}

function tickSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return null;
  }
}

/** CPU seconds of a process and all its descendants (nginx master + workers), from /proc. */
export function treeCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const own = cpuSeconds(pid);
  if (own === null) return null;
  let total = own;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return own;
  }
  const parentOf = new Map<number, number>();
  for (const d of entries) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (p: number): boolean => {
    for (let cur = parentOf.get(p), depth = 0; cur !== undefined && depth < 16; cur = parentOf.get(cur), depth++)
      if (cur === pid) return true;
    return false;
  };
  for (const p of parentOf.keys()) if (p !== pid && inTree(p)) total += cpuSeconds(p) ?? 0;
  return total;
}
