/**
 * Graceful drain within a deadline. The server stops accepting; requests in
 * flight finish on their own while connections are closed as they turn idle
 * (nothing pending on them; one that was busy when the drain began gets a
 * short linger for its client's next request).
 * At the deadline the upstream work still running is aborted, so its requests
 * answer through their normal path (a 503 SHUTTING_DOWN envelope, or a stale
 * entry); whatever still has no answer a moment later gets the 503 envelope
 * written here. Then every connection is closed. The drain always ends.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ProxyError } from '../errors/catalog.js';
import type { EnvelopeWriter } from './envelope-writer.js';

/** Responses not yet ended, for the cut at the deadline. */
export type OpenResponses = Set<ServerResponse>;

/**
 * Tracks the responses of `server` that are still open after its request
 * handlers ran. A response already ended by then (a synchronous cache hit)
 * costs one property read.
 */
export function trackResponses(server: Server): OpenResponses {
  const open: OpenResponses = new Set();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (res.writableEnded) return;
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return open;
}

export interface DrainOptions {
  server: Server;
  open: OpenResponses;
  /** Stops accepting; resolves once every connection has closed (Fastify's app.close()). */
  close: () => Promise<void>;
  /** Aborts the upstream work still running (its requests then fail with SHUTTING_DOWN). */
  abortUpstream: () => Promise<void>;
  deadlineMs: number;
  /** After abortUpstream, time given to requests to answer through their own path before the cut. */
  graceMs?: number;
  /** Writes the cut's 503 envelope. */
  writer: EnvelopeWriter;
}

export interface DrainResult {
  /** The deadline passed with requests still in flight. */
  timedOut: boolean;
  /** Requests answered with the 503 envelope written by the drain itself. */
  cut: number;
}

const SWEEP_MS = 50;
/**
 * A connection busy when the drain began stays this long after its response
 * ended: that response said keep-alive, so its client may already be sending
 * the next request, which is then served (with Connection: close).
 */
const LINGER_MS = 1000;
const DEFAULT_GRACE_MS = 250;

/** Resolves true when `p` settles first, false after `ms`. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/** Resolves when no tracked response is open any more, or after `ms`. */
async function settled(open: OpenResponses, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (open.size > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Answers an open response with the SHUTTING_DOWN envelope. The handler that
 * owns it may still finish later: its writeHead becomes a no-op (end() on an
 * ended response already is one), so a late answer is dropped, not thrown.
 */
function cut(res: ServerResponse, writer: EnvelopeWriter): boolean {
  if (res.headersSent) return false;
  const err = new ProxyError('SHUTTING_DOWN');
  writer.write(res, err.status, err.toBody(), { extra: ['connection', 'close'] });
  res.writeHead = (() => res) as ServerResponse['writeHead'];
  return true;
}

/** Node's per-server connection list: `idle()` holds the connections between two request messages. */
interface ConnectionsList {
  idle(): { socket: Socket & { _httpMessage?: unknown } }[];
}

/**
 * Makes `server.closeIdleConnections()` (called by Node's close(), Fastify's
 * close() and the sweep) close only connections with no response pending.
 * Node's own also destroys a connection whose current response has ended but
 * not yet flushed: that cuts the response to a slow reader, and drops the
 * responses to requests pipelined behind it. A connection has a response
 * pending, current or queued, exactly while its socket holds one
 * (`_httpMessage`). Node's version stays when its list cannot be found.
 */
function closeOnlyIdle(server: Server, keep: (socket: Socket) => boolean): void {
  const key = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections');
  if (key === undefined) return;
  const holder = server as unknown as Record<symbol, ConnectionsList | undefined>;
  if (typeof holder[key]?.idle !== 'function') return;
  server.closeIdleConnections = () => {
    const list = holder[key];
    if (list === undefined) return;
    for (const { socket } of list.idle()) if (socket._httpMessage == null && !keep(socket)) socket.destroy();
  };
}

/** For each connection busy at the drain's start, the time its response closed (Infinity until then). */
function lingering(open: OpenResponses): Map<Socket, number> {
  const since = new Map<Socket, number>();
  for (const res of open) {
    const socket = res.req.socket;
    since.set(socket, Infinity);
    res.once('close', () => since.set(socket, performance.now()));
  }
  return since;
}

export async function drain(o: DrainOptions): Promise<DrainResult> {
  const since = lingering(o.open);
  closeOnlyIdle(o.server, (socket) => performance.now() - (since.get(socket) ?? -Infinity) < LINGER_MS);
  const closing = o.close();
  // close() drops the connections idle at that moment; one that finishes its
  // request afterwards would stay open on keep-alive until its timeout.
  const sweep = setInterval(() => o.server.closeIdleConnections(), SWEEP_MS);
  try {
    if (await within(closing, o.deadlineMs)) return { timedOut: false, cut: 0 };
    const aborting = o.abortUpstream().catch(() => undefined);
    const grace = o.graceMs ?? DEFAULT_GRACE_MS;
    await settled(o.open, grace);
    let n = 0;
    for (const res of o.open) if (cut(res, o.writer)) n++;
    await within(closing, grace);
    o.server.closeAllConnections();
    await closing.catch(() => undefined);
    await aborting;
    return { timedOut: true, cut: n };
  } finally {
    clearInterval(sweep);
  }
}
