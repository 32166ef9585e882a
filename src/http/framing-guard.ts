/**
 * Requests Node's HTTP parser refuses only after handing them on: a
 * `Transfer-Encoding` whose last coding is not `chunked` (RFC 9112 6.3: the
 * server answers 400 and closes). llhttp raises that error right after the
 * request event, while the route may already be forwarding the request to a
 * passthrough backend or fetching from an upstream. This hook, the first of
 * every route, answers such a request 400 at once, closing the connection,
 * so it reaches nothing; the clientError handler that follows leaves the
 * socket to finish that answer (`answeringRefusal`).
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ProxyError } from '../errors/catalog.js';
import { sendError } from './envelope-writer.js';

const refusing = new WeakSet<Socket>();

/** A request's Transfer-Encoding the parser refuses: its last coding is not `chunked`. */
function refusedTransferEncoding(te: string): boolean {
  const last = te.slice(te.lastIndexOf(',') + 1);
  return last.trim().toLowerCase() !== 'chunked';
}

/** The socket is writing the refusal of a request its parser then failed on. */
export function answeringRefusal(socket: Socket): boolean {
  return refusing.has(socket);
}

export function registerFramingGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const te = request.headers['transfer-encoding'];
    if (te === undefined || !refusedTransferEncoding(te)) {
      done();
      return;
    }
    refusing.add(request.raw.socket);
    sendError(reply, new ProxyError('BAD_REQUEST', 'bad request: unsupported Transfer-Encoding'), {
      extra: ['connection', 'close'],
    });
  });
}
