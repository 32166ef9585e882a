/**
 * A real three-master Redis Cluster for tests: three `redis-server
 * --cluster-enabled yes` on free ports (persistence off, temp dir), joined by
 * `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, resolved
 * once every node reports `cluster_state:ok`. Never a mock.
 *
 *   url            redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3
 *   killMaster(i)  SIGKILL one master (its slots are lost: no replicas)
 *   stop()         stops every node and removes the temp dir
 *
 * Needs redis-server and redis-cli; use `describeRedisCluster()` to skip
 * loudly (or fail in CI) when they are missing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe } from 'vitest';
import { findRedisServer, freePort } from './redis-server.js';

const run = promisify(execFile);

export interface RedisCluster {
  readonly url: string;
  readonly ports: readonly number[];
  killMaster(index: number): Promise<void>;
  stop(): Promise<void>;
}

function findRedisCli(): string | null {
  const server = findRedisServer();
  if (server === null) return null;
  const cli = join(dirname(server), 'redis-cli');
  return existsSync(cli) ? cli : null;
}

/** `describe` when redis-server and redis-cli are available, else `describe.skip` (throws in CI). */
export function describeRedisCluster(): typeof describe | typeof describe.skip {
  if (findRedisCli() !== null) return describe;
  const msg = 'redis-server/redis-cli not found';
  if (process.env.CI === 'true') throw new Error(`${msg}: Redis Cluster tests cannot be skipped in CI`);
  console.warn(`\n!!! ${msg}: SKIPPING the Redis Cluster tests !!!\n`);
  return describe.skip;
}

async function cli(bin: string, args: string[]): Promise<string> {
  const { stdout } = await run(bin, args, { timeout: 20_000 });
  return stdout;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`redis cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const server = findRedisServer();
  const cliBin = findRedisCli();
  if (server === null || cliBin === null) throw new Error('redis-server/redis-cli not found');
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const procs: (ChildProcess | null)[] = ports.map((port) =>
    spawn(
      server,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--protected-mode',
        'no',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '1000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    ),
  );
  const stopAll = async () => {
    await Promise.all(
      procs.map(async (p, i) => {
        if (p === null) return;
        procs[i] = null;
        if (p.exitCode === null && p.signalCode === null) {
          const exited = new Promise((r) => p.once('exit', r));
          p.kill('SIGKILL');
          await exited;
        }
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      await until(
        `node ${port}`,
        10_000,
        async () => (await cli(cliBin, ['-p', String(port), 'ping'])).trim() === 'PONG',
      );
    await cli(cliBin, [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports) {
      await until(`cluster_state:ok on ${port}`, 20_000, async () =>
        (await cli(cliBin, ['-p', String(port), 'cluster', 'info'])).includes('cluster_state:ok'),
      );
    }
  } catch (e) {
    await stopAll();
    throw e;
  }
  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    async killMaster(index) {
      const p = procs[index];
      if (p === null || p === undefined) return;
      procs[index] = null;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await exited;
    },
    stop: stopAll,
  };
}
