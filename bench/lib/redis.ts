/** A throwaway redis-server (no persistence) on a free port, as a child process. */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, sleep, spawnChild, type Child } from './proc.js';

export const REDIS_BIN =
  ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/usr/sbin/redis-server'].find((p) => existsSync(p)) ?? null;

export async function startRedis(): Promise<{
  url: string;
  child: Child;
  flush(): Promise<void>;
  close(): Promise<void>;
}> {
  if (REDIS_BIN === null) throw new Error('redis-server not installed');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-redis-'));
  const child = spawnChild('redis', REDIS_BIN, [
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
  ]);
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  client.on('error', () => undefined); // refused while redis-server starts; close() disconnects first
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (e) {
      if (i > 100 || child.proc.exitCode !== null)
        throw new Error(`redis-server did not start: ${String(e)}\n${child.tail()}`);
      client.disconnect();
      await sleep(100);
    }
  }
  return {
    url,
    child,
    flush: async () => {
      await client.flushall();
    },
    close: async () => {
      client.disconnect();
      await child.stop();
    },
  };
}
