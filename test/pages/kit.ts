/**
 * Page tests' plumbing (not a test file): the simulator behind a relay that
 * adds per-endpoint latency or failures on command and records each upstream
 * request (arrival and answer times), and a real proxy in front of the relay.
 */
import { EventEmitter } from 'node:events';
import { request } from 'undici';
import { pino } from 'pino';
import { buildProxy, type ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { locate } from '../../src/transform/json-scan.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testConfig, type ConfigPatch } from '../helpers/proxy.js';
import { get, withoutStamps, type Got } from '../helpers/proxy-kit.js';
import { untilEmitted, untilHead } from '../helpers/until.js';

interface Fault {
  latencyMs?: number;
  /** Answer with this status and a 5xx envelope instead of relaying. */
  status?: number;
}

interface Seen {
  path: string;
  url: string;
  arrived: number;
  answered: number | null;
}

export interface PagesEnv {
  sim: SimulatorHandle;
  relay: FakeUpstream;
  proxy: ProxyHandle;
  base: string;
  /** Upstream requests seen by the relay (probes included) since start or the last mark(). */
  seen: Seen[];
  faults: Map<string, Fault>;
  /** Forget the requests seen so far. */
  mark(): void;
  /** One probe round now: the proxy learns the simulator's head as its prober would (the upstream's head with it). */
  probe(): Promise<void>;
  /** Upstream requests for one endpoint (no leading slash) since the last mark. */
  count(endpoint?: string): number;
  /** Resolves once `holds` does, checked as each relay request arrives and as it is answered. */
  until(holds: () => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPagesEnv(patch: ConfigPatch = {}, clock?: () => number): Promise<PagesEnv> {
  const sim = await startSimulator({ seed: 1, blockIntervalMs: 0 });
  const faults = new Map<string, Fault>();
  const env = { seen: [] as Seen[] } as PagesEnv;
  const moved = new EventEmitter();
  const relay = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!.slice(1);
    const s: Seen = { path, url, arrived: performance.now(), answered: null };
    env.seen.push(s);
    moved.emit('arrived');
    const f = faults.get(path);
    if (f?.latencyMs !== undefined) await new Promise((r) => setTimeout(r, f.latencyMs));
    if (f?.status !== undefined) {
      sendJson(res, f.status, '{"code":500,"msg":"injected failure","data":null}');
    } else {
      const up = await request(sim.url + url);
      const body = Buffer.from(await up.body.arrayBuffer());
      sendJson(res, up.statusCode, body);
    }
    s.answered = performance.now();
    moved.emit('answered');
  });
  const config = testConfig([relay.url], { upstream: { hedgeAfterMs: 0, hedgeQuantile: 0, maxAttempts: 1 }, ...patch });
  const built = await buildProxy(config, { logger: pino({ level: config.logLevel }), ...(clock ? { clock } : {}) });
  const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const proxy: ProxyHandle = {
    url,
    app: built.app,
    resolver: built.resolver,
    tracker: built.tracker,
    memory: built.memory,
    pages: built.pages,
    stream: built.stream,
    firstProbe: built.pool.firstProbe,
    operators: built.operators,
    close: built.close,
  };
  await untilHead(proxy.tracker, (h) => h !== null, 'first probe', 5000);
  Object.assign(env, {
    sim,
    relay,
    proxy,
    base: proxy.url,
    faults,
    mark() {
      env.seen = [];
    },
    probe: () => built.pool.probeNow(),
    count(endpoint?: string) {
      return env.seen.filter((s) => endpoint === undefined || s.path === endpoint).length;
    },
    until(holds: () => boolean, what: string) {
      return untilEmitted(moved, ['arrived', 'answered'], holds, what);
    },
    async close() {
      await proxy.close();
      await relay.close();
      await sim.close();
    },
  });
  env.mark();
  return env;
}

export interface PageMeta {
  page: string;
  head: number | null;
  composed_at: number;
  /** Parts past the client's miss budget were not fetched. */
  partial?: boolean;
  parts: Record<
    string,
    {
      request: string | null;
      cache?: string;
      status: string;
      head?: number | null;
      behind_head?: boolean;
      stale?: string;
      final?: boolean;
      error?: { code: number; msg: string; http_status: number };
      ttl_ms?: number;
      age_ms?: number;
    }
  >;
}

export function metaOf(g: Got): PageMeta {
  return (g.json as { meta: PageMeta }).meta;
}

/** The raw bytes of `data.<part>` in a page body (time-relative fields zeroed). */
export function partBytes(g: Got, part: string): string {
  const r = locate(g.raw, ['data', part]);
  if (r === null) throw new Error(`no data.${part} in ${g.text.slice(0, 200)}`);
  return withoutStamps(g.raw.toString('utf8', r.start, r.end));
}

/** The raw bytes of `data` of a direct answer (time-relative fields zeroed). */
export function dataBytes(g: Got): string {
  const r = locate(g.raw, ['data']);
  if (r === null) throw new Error(`no data in ${g.text.slice(0, 200)}`);
  return withoutStamps(g.raw.toString('utf8', r.start, r.end));
}

/** The memory-tier key of a page request (`pages/<name>?<canonical parameters>`). */
export function pageKey(env: PagesEnv, name: string, query = ''): string {
  const pages = env.proxy.pages;
  return pages.request(pages.page(name)!, query).key;
}

/** Waits until the memory tier holds the compressed variants of a stored page (made in the background). */
export async function variantsStored(env: PagesEnv, key: string): Promise<void> {
  await waitFor(() => env.proxy.memory.peek(key)?.raw('br').encoding === 'br', 5000, `variants of ${key}`);
}

/** Distinct parts a page actually requested (meta `request` not null). */
export function requestedParts(m: PageMeta): string[] {
  return Object.entries(m.parts)
    .filter(([, p]) => p.request !== null)
    .map(([name]) => name);
}

export { get };
