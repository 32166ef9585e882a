/**
 * ioredis connections for the Redis tier, configured to degrade, never stall:
 * no offline queue (a command while disconnected fails at once), a per-command
 * timeout, no per-request retries, a short connect timeout, and a reconnect
 * strategy with capped exponential backoff that never gives up, so the tier
 * resumes by itself when Redis returns. An 'error' listener is always attached
 * so connection errors never crash the process.
 *
 * Accepted URLs:
 *   redis://[user:pass@]host:port[/db]          a single server (ioredis URL parsing)
 *   rediss://[user:pass@]host:port[/db]         the same over TLS
 *   redis-cluster://[user:pass@]h1:p1,h2:p2     Redis Cluster (ioredis `Cluster`), the
 *                                               listed nodes are the startup nodes
 *   redis-sentinel://[user:pass@]h1:p1,h2:p2/mymaster
 *                                               Sentinel: the listed sentinels, master
 *                                               name from the path; user:pass is the
 *                                               master's credentials
 * The plain and cluster forms are exercised by the tests (test/cluster/ runs a
 * real three-master cluster: shared tier, bus, lease, rate limit, a master lost).
 * In cluster mode every multi-key command keeps its keys in one slot (the
 * lease's compare-and-delete script takes one key), pub/sub goes through the
 * cluster bus, and commands fail fast on CLUSTERDOWN.
 *
 * Subscriber connections (`role: 'subscriber'`) keep the offline queue so the
 * SUBSCRIBE issued before the first connect is sent once connected. A single
 * node's subscriber does not re-subscribe by itself after a reconnect: the bus
 * does, on every 'ready', with its failure handled (ioredis' own re-subscribe
 * leaves its promise unhandled, and a close before the reply then rejects it
 * unhandled, which ends a Node.js process). A cluster re-subscribes as before.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/types.js';

export type RedisClient = Redis | Cluster;

export interface CreateRedisOptions {
  role?: 'command' | 'subscriber';
  /** Connection errors (refused, reset, timeouts). Called often while Redis is down. */
  onError?: (err: Error) => void;
}

/** Reconnect delay: 50 ms doubling, capped at 2 s; never gives up. */
function reconnectDelay(times: number): number {
  return Math.min(50 * 2 ** Math.min(Math.max(times - 1, 0), 10), 2000);
}

interface MultiHost {
  nodes: { host: string; port: number }[];
  path: string;
  username: string | undefined;
  password: string | undefined;
}

function parseMultiHost(rest: string, defaultPort: number): MultiHost {
  const slash = rest.indexOf('/');
  let authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : decodeURIComponent(rest.slice(slash + 1));
  let username: string | undefined;
  let password: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const cred = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = cred.indexOf(':');
    const user = decodeURIComponent(colon === -1 ? cred : cred.slice(0, colon));
    username = user === '' ? undefined : user;
    password = colon === -1 ? undefined : decodeURIComponent(cred.slice(colon + 1));
  }
  const nodes = authority
    .split(',')
    .filter((h) => h !== '')
    .map((h) => {
      const colon = h.lastIndexOf(':');
      const host = colon === -1 ? h : h.slice(0, colon);
      const port = colon === -1 ? defaultPort : Number(h.slice(colon + 1));
      if (host === '' || !Number.isInteger(port) || port <= 0 || port > 65535)
        throw new Error(`invalid Redis host "${h}"`);
      return { host, port };
    });
  if (nodes.length === 0) throw new Error('Redis URL lists no hosts');
  return { nodes, path, username, password };
}

function baseOptions(cfg: RedisConfig, role: 'command' | 'subscriber'): RedisOptions {
  const subscriber = role === 'subscriber';
  return {
    enableOfflineQueue: subscriber,
    commandTimeout: subscriber ? undefined : cfg.commandTimeoutMs,
    maxRetriesPerRequest: subscriber ? null : 0,
    connectTimeout: Math.max(200, Math.min(2000, cfg.commandTimeoutMs * 10)),
    retryStrategy: reconnectDelay,
    autoResubscribe: !subscriber,
    enableReadyCheck: true,
    lazyConnect: false,
    keepAlive: 10_000,
  };
}

/** Creates a connection (or cluster client) for `url`; see the module comment for the URL forms. */
export function createRedis(url: string, cfg: RedisConfig, opts: CreateRedisOptions = {}): RedisClient {
  const role = opts.role ?? 'command';
  const base = baseOptions(cfg, role);
  let client: RedisClient;
  if (url.startsWith('redis-cluster://')) {
    const { nodes, username, password } = parseMultiHost(url.slice('redis-cluster://'.length), 6379);
    const clusterOpts: ClusterOptions = {
      enableOfflineQueue: base.enableOfflineQueue,
      clusterRetryStrategy: reconnectDelay,
      // Degrade, never stall: a CLUSTERDOWN answer or a closed node connection fails the
      // command at once (the tier's breaker takes over) instead of being retried in a loop.
      ...(role === 'command' ? { retryDelayOnClusterDown: 0, retryDelayOnFailover: 0 } : {}),
      lazyConnect: false,
      enableReadyCheck: true,
      redisOptions: { ...base, autoResubscribe: true, username, password },
    };
    client = new Cluster(nodes, clusterOpts);
  } else if (url.startsWith('redis-sentinel://')) {
    const { nodes, path, username, password } = parseMultiHost(url.slice('redis-sentinel://'.length), 26379);
    if (path === '') throw new Error('redis-sentinel:// URL needs the master name as its path');
    client = new Redis({
      ...base,
      sentinels: nodes,
      name: path,
      username,
      password,
      sentinelRetryStrategy: reconnectDelay,
    });
  } else if (url.startsWith('redis://') || url.startsWith('rediss://')) {
    client = new Redis(url, base);
  } else {
    throw new Error(`unsupported Redis URL scheme: ${url.split(':')[0] ?? ''}`);
  }
  const onError = opts.onError ?? (() => {});
  client.on('error', (err: Error) => onError(err));
  return client;
}

/** True when the client can take commands now. */
export function isReady(client: RedisClient): boolean {
  return client.status === 'ready';
}

/** Resolves once the client is ready, false after timeoutMs (never rejects). */
export function waitReady(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (isReady(client)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    client.once('ready', onReady);
  });
}

/** Closes without waiting on a dead server: QUIT when ready, else disconnect. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (isReady(client)) {
    try {
      await Promise.race([client.quit(), new Promise((r) => setTimeout(r, 500))]);
    } catch {
      // fall through to disconnect
    }
  }
  client.disconnect();
}
