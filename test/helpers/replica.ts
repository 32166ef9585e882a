/**
 * A whole proxy (buildProxy + listen on port 0) for the multi-upstream and
 * fleet integration tests, exposing what startProxy hides: the upstream pool
 * (probe rounds, status) and the Redis fleet (connection and bus readiness).
 * `startReplica` resolves only once the first probe round is done and, with a
 * Redis URL, once the command connection is ready and the bus subscribed, so
 * tests start from a known state instead of racing the connect.
 */
import { pino } from 'pino';
import { request } from 'undici';
import { buildProxy } from '../../src/app.js';
import { waitReady } from '../../src/redis/client.js';
import { testConfig, type ConfigPatch } from './proxy.js';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { closeAfterEach } from './teardown.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { untilEmitted } from './until.js';

type Built = Awaited<ReturnType<typeof buildProxy>>;

export interface Replica {
  url: string;
  pool: Built['pool'];
  fleet: Built['fleet'];
  /** Who does the fleet's background work (null without Redis). */
  duty: Built['duty'];
  tracker: Built['tracker'];
  resolver: Built['resolver'];
  memory: Built['memory'];
  stream: Built['stream'];
  touched: Built['touched'];
  invalidation: Built['invalidation'];
  close(): Promise<void>;
}

export async function startReplica(
  upstreamUrls: string[],
  patch: ConfigPatch = {},
  clock?: () => number,
): Promise<Replica> {
  const config = testConfig(upstreamUrls, patch);
  const built = await buildProxy(config, { logger: pino({ level: config.logLevel }), ...(clock ? { clock } : {}) });
  const address = await built.app.listen({ port: 0, host: '127.0.0.1' });
  if (built.fleet !== null) {
    if (!(await waitReady(built.fleet.client, 5000))) throw new Error('replica: redis command connection not ready');
    if (!(await built.fleet.bus.ready(5000))) throw new Error('replica: redis bus not subscribed');
  }
  await built.pool.firstProbe;
  let closed: Promise<void> | undefined;
  return {
    url: address,
    pool: built.pool,
    fleet: built.fleet,
    duty: built.duty,
    tracker: built.tracker,
    resolver: built.resolver,
    memory: built.memory,
    stream: built.stream,
    touched: built.touched,
    invalidation: built.invalidation,
    close: () => (closed ??= built.close()),
  };
}

/** Resolves when `r` follows a leader, checked as its bus hears heartbeats (or subscribes again). */
export function untilFollows(r: Replica, what: string, timeoutMs?: number): Promise<void> {
  if (r.fleet === null) throw new Error('untilFollows: a replica without a fleet never follows');
  return untilEmitted(r.fleet.bus, ['heads', 'subscribed'], () => r.duty?.turn() === 'follower', what, timeoutMs);
}

export interface Got {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Wall time of the whole exchange, ms. */
  ms: number;
  cache: string | undefined;
  head: number | null;
}

/** GET `path` on `base`, body read in full (identity encoding, no decompression surprises). */
export async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Got> {
  const started = performance.now();
  const res = await request(`${base}${path}`, { method: 'GET', headers });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  const h = flat['x-chain-head'];
  return {
    status: res.statusCode,
    headers: flat,
    text,
    ms: performance.now() - started,
    cache: flat['x-cache'],
    head: h === undefined ? null : Number(h),
  };
}

/** `data` of a JSON envelope. */
export function dataOf(text: string): Record<string, unknown> {
  const j = JSON.parse(text) as { data?: unknown };
  return (typeof j.data === 'object' && j.data !== null ? j.data : {}) as Record<string, unknown>;
}

/** `max-age` of a Cache-Control header, or NaN. */
export function maxAge(headers: Record<string, string>): number {
  const m = /max-age=(\d+)/.exec(headers['cache-control'] ?? '');
  return m?.[1] !== undefined ? Number(m[1]) : NaN;
}

/** Sum of a Prometheus counter over the series whose labels include every `labels` pair. */
export async function counter(base: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { text } = await get(base, '/metrics');
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export interface UpstreamRow {
  name: string;
  healthy: boolean;
  lagging: boolean;
  head: number | null;
  lag: number | null;
  breaker: 'closed' | 'open' | 'half-open';
  inFlight: number;
}

/** The upstream rows of GET /status. */
export async function upstreamStatus(base: string): Promise<UpstreamRow[]> {
  const { text } = await get(base, '/status');
  return (dataOf(text)['upstreams'] ?? []) as UpstreamRow[];
}

/** Runs `tasks` with at most `concurrency` in flight, results in task order. */
export async function limited<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return out;
}

/** Time-relative fields zeroed, for comparing re-stamped hits with the original answer. */
export function unstamped(text: string): string {
  return text.replace(/"(server_timestamp|currentTimestamp|timeDiff)":-?\d+/g, '"$1":0');
}

/**
 * Three simulators (same seed, manual blocks) behind one proxy replica, for the
 * multi-upstream tests; torn down after each test.
 */
export function simulatorTrio(): { start(patch: ConfigPatch): Promise<{ sims: SimulatorHandle[]; proxy: Replica }> } {
  const scope = closeAfterEach<SimulatorHandle, Replica>();
  return {
    async start(patch) {
      const sims = await Promise.all([0, 1, 2].map(() => startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })));
      scope.upstreams.push(...sims);
      const proxy = (scope.front = await startReplica(
        sims.map((s) => s.url),
        patch,
      ));
      return { sims, proxy };
    },
  };
}

export interface RedisFleet {
  /** The simulator every replica reads (seed 5, blocks made by hand). */
  readonly sim: SimulatorHandle;
  /** A replica on them (closed when the test ends). */
  replica(): Promise<Replica>;
}

/**
 * Replicas sharing a real redis-server, for one describe block (call it there:
 * it registers the block's hooks). The redis-server and the simulator live for
 * the block; every replica has `patch`, the key prefix and `clock`.
 */
export function redisFleet(keyPrefix: string, patch: ConfigPatch = {}, clock?: () => number): RedisFleet {
  let redis: RedisServer | undefined;
  let sim: SimulatorHandle | undefined;
  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 5 })]);
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), redis?.stop()]);
  });
  return {
    get sim() {
      return sim!;
    },
    async replica() {
      const r = await startReplica([sim!.url], { ...patch, redisUrl: redis!.url, redis: { keyPrefix } }, clock);
      onTestFinished(() => r.close());
      return r;
    },
  };
}
