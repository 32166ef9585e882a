/**
 * Limits at the HTTP edge, before any route runs:
 * - the connection caps, overall and per client address (connection-limits.ts,
 *   applied with the surface: they count into the metrics registry);
 * - a headers timeout of seconds (Node checks it every
 *   `connectionsCheckingInterval`, so that interval is kept well below it:
 *   with Node's defaults a slow-header client is cut only after ~77 s);
 * - request timeout (whole request received) = twice the headers timeout,
 *   and a keep-alive timeout for idle connections;
 * - parser-level errors (malformed request line or headers, headers too
 *   large, timeouts, malformed URL) answered with the `{code,msg,data}`
 *   envelope instead of Fastify's default body.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EDGE_ERRORS, envelopeBody, ProxyError, type EdgeErrorKind } from '../errors/catalog.js';
import { sendError, type EnvelopeWriter } from './envelope-writer.js';
import { answeringRefusal } from './framing-guard.js';
import type { ConnectionLimits } from './connection-limits.js';

export interface EdgeLimits extends ConnectionLimits {
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Interval of Node's check of headers/request timeouts: a quarter of the headers timeout, within 100 ms..1 s. */
function checkingIntervalMs(headersTimeoutMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/** The parser error codes and the catalogue entry each is answered with. */
function kindOf(err: NodeJS.ErrnoException): EdgeErrorKind {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') return 'CLIENT_TIMEOUT';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

/** Fastify's `clientErrorHandler`: Node's parser errors answered with the envelope (connection closed). */
function clientErrorHandler(writer: EnvelopeWriter): (err: NodeJS.ErrnoException, socket: Socket) => void {
  const responses = new Map<EdgeErrorKind, string>();
  const responseOf = (kind: EdgeErrorKind): string => {
    let text = responses.get(kind);
    if (text === undefined) {
      const e = EDGE_ERRORS[kind];
      text = writer.rawResponse(e.status, envelopeBody(e.code, e.msg));
      responses.set(kind, text);
    }
    return text;
  };
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already being written on this socket cannot be followed by another.
    const busy = (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
    if (busy && answeringRefusal(socket)) {
      // The refusal is being written (framing-guard.ts); the connection closes after it.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    if (!socket.writable || busy) {
      socket.destroy();
      return;
    }
    const kind = kindOf(err);
    socket.end(responseOf(kind));
    writer.count(undefined, EDGE_ERRORS[kind].status);
    // The client may never close its side: do not keep the socket past the flush.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/** Fastify's `frameworkErrors` (e.g. a malformed URL): a 400 envelope. */
function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendError(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
}

/** Options for `Fastify({...})`: spread them into the constructor's options. */
export function edgeServerOptions(limits: EdgeLimits, writer: EnvelopeWriter) {
  return {
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits.headersTimeoutMs),
    },
    requestTimeout: 2 * limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    clientErrorHandler: clientErrorHandler(writer),
    frameworkErrors,
  };
}

/** Applies what can only be set on the created server (the connection caps are registerSurface's). */
export function applyEdgeLimits(app: FastifyInstance, limits: EdgeLimits): void {
  app.server.headersTimeout = limits.headersTimeoutMs;
}
