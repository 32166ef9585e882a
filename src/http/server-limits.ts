/**
 * Limits at the HTTP edge, before any route runs:
 * - a connection cap (Node's `server.maxConnections`: sockets past it are
 *   closed at once, without a response);
 * - a headers timeout of seconds (Node checks it every
 *   `connectionsCheckingInterval`, so that interval is kept well below it:
 *   with Node's defaults a slow-header client is cut only after ~77 s);
 * - request timeout (whole request received) = twice the headers timeout,
 *   and a keep-alive timeout for idle connections;
 * - parser-level errors (malformed request line or headers, headers too
 *   large, timeouts, malformed URL) answered with the `{code,msg,data}`
 *   envelope instead of Fastify's default body.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EDGE_ERRORS, envelopeBody, ProxyError, type EdgeErrorKind } from '../errors/catalog.js';
import { CORS_HEADERS } from './deliver.js';

export interface EdgeLimits {
  /** 0: no cap. */
  maxConnections: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Interval of Node's check of headers/request timeouts: a quarter of the headers timeout, within 100 ms..1 s. */
export function checkingIntervalMs(headersTimeoutMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/** The parser error codes and the catalogue entry each is answered with. */
function kindOf(err: NodeJS.ErrnoException): EdgeErrorKind {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') return 'CLIENT_TIMEOUT';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

/** A whole HTTP/1.1 response carrying the envelope of `kind`, closing the connection. */
export function rawEnvelopeResponse(kind: EdgeErrorKind): string {
  const err = EDGE_ERRORS[kind];
  const body = envelopeBody(err.code, err.msg).toString('utf8');
  const cors = Object.entries(CORS_HEADERS)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n` +
    `content-type: application/json; charset=utf-8\r\ncache-control: no-store\r\n${cors}` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** Fastify's `clientErrorHandler`: Node's parser errors answered with the envelope. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already being written on this socket cannot be followed by another.
  const busy = (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
  if (!socket.writable || busy) {
    socket.destroy();
    return;
  }
  socket.end(rawEnvelopeResponse(kindOf(err)));
  // The client may never close its side: do not keep the socket past the flush.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** Fastify's `frameworkErrors` (e.g. a malformed URL): a 400 envelope. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const err = new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`);
  void reply.code(err.status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').headers(CORS_HEADERS).send(err.toBody());
}

/** Options for `Fastify({...})`: spread them into the constructor's options. */
export function edgeServerOptions(limits: EdgeLimits) {
  return {
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: checkingIntervalMs(limits.headersTimeoutMs) },
    requestTimeout: 2 * limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    clientErrorHandler,
    frameworkErrors,
  };
}

/** Applies what can only be set on the created server (the connection cap). */
export function applyEdgeLimits(app: FastifyInstance, limits: EdgeLimits): void {
  if (limits.maxConnections > 0) app.server.maxConnections = limits.maxConnections;
  app.server.headersTimeout = limits.headersTimeoutMs;
}
