/**
 * Shared plumbing of the integration tests with one proxy in front of one
 * fake upstream (not a test file itself): a fake upstream + a real proxy on
 * port 0, a raw HTTP client that never decompresses, deferred promises,
 * fixture helpers and a metrics reader.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'undici';
import type { ProxyHandle } from '../../src/app.js';
import {
  loadFixtures,
  sendJson,
  serveFixtures,
  startFakeUpstream,
  waitFor,
  type FakeUpstream,
  type Fixture,
  type Handler,
} from './fake-upstream.js';
import { startTestProxy, type ConfigPatch } from './proxy.js';
import { fakeClock } from './clock.js';

export const PUBLIC = 'https://api.example.test';

export const FIXTURES: Fixture[] = loadFixtures();
const byPath = new Map(FIXTURES.map((f) => [f.path, f]));

export function fixture(path: string): Fixture {
  const f = byPath.get(path);
  if (f === undefined) throw new Error(`no fixture for ${path}`);
  return f;
}

/** The fixture body as the proxy must send it: next/previous pointing at PUBLIC. */
export function expectedBody(body: string, base = PUBLIC): string {
  return body.replace(/"(next|previous)":"http:\/\/data\.nebulas\.io\//g, (_m, k: string) => `"${k}":"${base}/`);
}

/** Time-relative fields zeroed, for comparing re-stamped hits. */
export function withoutStamps(text: string): string {
  return text.replace(/"(server_timestamp|currentTimestamp|timeDiff)":-?\d+/g, '"$1":0');
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

export function queryOf(req: IncomingMessage): URLSearchParams {
  const u = req.url ?? '/';
  const q = u.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : u.slice(q + 1));
}

/**
 * A handler answering the given endpoints (keys without leading slash) and
 * delegating everything else (block/max probes included) to the fixtures.
 */
export function routes(table: Record<string, Handler>, fallback: Handler = serveFixtures()): Handler {
  return (req, res) => {
    const h = table[pathOf(req).slice(1)];
    return h !== undefined ? h(req, res) : fallback(req, res);
  };
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface Env {
  up: FakeUpstream;
  proxy: ProxyHandle;
  base: string;
  /** Upstream requests for `path` (leading slash optional) since start, probes included. */
  count(path?: string): number;
  close(): Promise<void>;
}

export interface EnvOptions {
  handler?: Handler;
  patch?: ConfigPatch;
  clock?: () => number;
  /** Wait for the pool's first block/max probe to be answered and processed (default true). */
  waitProbe?: boolean;
}

/**
 * Fake upstream + proxy. By default waits until the first probe round is over,
 * so the chain head is known and no probe races the test's own requests.
 */
export async function startEnv(o: EnvOptions = {}): Promise<Env> {
  const up = await startFakeUpstream(o.handler ?? serveFixtures());
  const proxy = await startTestProxy([up.url], o.patch ?? {}, o.clock);
  const env: Env = {
    up,
    proxy,
    base: proxy.url,
    count: (p?: string) => up.count(p),
    async close() {
      await proxy.close();
      await up.close();
    },
  };
  if (o.waitProbe !== false) {
    try {
      await up.arrived(1, '/block/max', 'first upstream probe');
      await proxy.firstProbe;
      const s = await get(env.base, '/status');
      const ups =
        (s.json as { data?: { upstreams?: Array<{ healthy: boolean; lastError: string | null }> } }).data?.upstreams ??
        [];
      if (s.status !== 200 || ups.length === 0 || !ups.every((u) => u.healthy || u.lastError !== null))
        throw new Error(`first upstream probe: /status ${s.status} ${s.text.slice(0, 300)}`);
    } catch (e) {
      await env.close();
      throw e;
    }
  }
  return env;
}

export interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw bytes as received (no decompression). */
  raw: Buffer;
  text: string;
  json: unknown;
  header(name: string): string | undefined;
}

export interface GetOptions {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';
  headers?: Record<string, string | string[]>;
  body?: string;
  signal?: AbortSignal;
}

/** One request through undici's `request` (raw bytes, no automatic decompression). */
export async function get(base: string, pathAndQuery: string, o: GetOptions = {}): Promise<Got> {
  const res = await request(base + pathAndQuery, {
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body,
    signal: o.signal,
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const headers = res.headers as Record<string, string | string[] | undefined>;
  return {
    status: res.statusCode,
    headers,
    raw,
    text,
    json: parsed,
    header(name) {
      const v = headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

export interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

export function envelope(g: Got): Envelope {
  const j = g.json as Envelope | undefined;
  if (j === undefined || typeof j !== 'object' || j === null)
    throw new Error(`not a JSON envelope (HTTP ${g.status}): ${g.text.slice(0, 200)}`);
  return j;
}

/** Reads one sample of a Prometheus counter from /metrics (0 when absent). */
export async function metric(base: string, suffix: string, labels: Record<string, string> = {}): Promise<number> {
  const g = await get(base, '/metrics');
  if (g.status !== 200) return 0;
  let total = 0;
  for (const line of g.text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m === null || !m[1]!.endsWith(suffix)) continue;
    const labelText = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) total += Number(m[3]);
  }
  return total;
}

export type { Handler, IncomingMessage };
export { sendJson, serveFixtures, waitFor };

/**
 * A fake clock starting at the real time. Tests of cache timing use it so they
 * exercise the resolver's rules; `clock.test.ts` separately checks that the
 * injected clock also drives the memory tier (a clock far from real time).
 */
export function settableClock(): ReturnType<typeof fakeClock> {
  return fakeClock(Date.now());
}
