/**
 * A controllable fake upstream on a real socket (port 0), in the spirit of
 * @fastify/reply-from's test servers and erpc's fake_server.go. Tests swap the
 * handler at will and read the request log.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { LEAST_WAIT_MS, untilEmitted } from './until.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose path (without query) equals `path` (leading slash optional). */
  count(path?: string): number;
  /** Resolves once `count(path)` reaches `n`, on the request's arrival (no polling). */
  arrived(n: number, path?: string, what?: string): Promise<void>;
  /** Resolves once `holds` does, checked as each request arrives (after its handler started). */
  until(holds: () => boolean, what: string): Promise<void>;
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(handler: Handler = serveFixtures()): Promise<FakeUpstream> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const arrivals = new EventEmitter();
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    Promise.resolve(current(req, res)).catch((err: unknown) => {
      res.statusCode = 599;
      res.end(String(err));
    });
    // After the handler's first synchronous steps (a recorder's log entry, say).
    arrivals.emit('request');
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const count = (path?: string): number => {
    if (path === undefined) return requests.length;
    const want = path.startsWith('/') ? path : `/${path}`;
    return requests.filter((r) => r.url.split('?')[0] === want).length;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count,
    arrived(n, path, what = `${n} requests for ${path ?? 'anything'}`) {
      return untilEmitted(arrivals, 'request', () => count(path) >= n, what);
    },
    until(holds, what) {
      return untilEmitted(arrivals, 'request', holds, what);
    },
    setHandler(h) {
      current = h;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Fixture {
  path: string;
  query: string;
  body: string;
}

const FIXTURE_FILE = fileURLToPath(new URL('../fixtures/datacenter-examples.json', import.meta.url));

export function loadFixtures(): Fixture[] {
  return JSON.parse(readFileSync(FIXTURE_FILE, 'utf8')) as Fixture[];
}

export function sendJson(res: ServerResponse, status: number, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(body);
}

/** Serves each fixture's raw body at its path, whatever the query; unknown paths get a 404 envelope. */
export function serveFixtures(fixtures: Fixture[] = loadFixtures()): Handler {
  const byPath = new Map(fixtures.map((f) => [`/${f.path}`, f.body]));
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = byPath.get(path);
    if (body === undefined) sendJson(res, 404, '{"code":404,"msg":"not found","data":null}');
    else sendJson(res, 200, body);
  };
}

/**
 * Recorded answers, except that requests whose URL starts with `prefix` wait
 * until `release()`: every such request is really in flight at the same time.
 */
export function heldFixtures(prefix: string): { handler: Handler; release: () => void } {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fixtures = serveFixtures();
  const handler: Handler = async (req, res) => {
    if ((req.url ?? '').startsWith(prefix)) await held;
    return fixtures(req, res);
  };
  return { handler, release };
}

/**
 * Resolves when `predicate` holds (polled every 5 ms; prefer an event: test/helpers/until.ts);
 * fails after max(timeoutMs, 20 s) naming `what`.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = LEAST_WAIT_MS,
  what = 'condition',
): Promise<void> {
  const limit = Math.max(timeoutMs, LEAST_WAIT_MS);
  const deadline = Date.now() + limit;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limit} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
