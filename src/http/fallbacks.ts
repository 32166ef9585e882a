/**
 * Everything that is not a catalogue GET/HEAD: CORS preflight, 405 for other
 * methods on known paths, 404 for unknown paths, and Fastify's own errors —
 * all as `{code, msg, data}` envelopes.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProxyError } from '../errors/catalog.js';
import { CORS_HEADERS } from './deliver.js';

const send = (reply: FastifyReply, err: ProxyError) =>
  reply.code(err.status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').headers(CORS_HEADERS).send(err.toBody());

/** The answer to an unknown path (also what non-operators get on operator routes). */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
  return send(reply, new ProxyError('ROUTE_NOT_FOUND', `no such endpoint: ${path.slice(0, 80)}`));
}

export function registerFallbacks(app: FastifyInstance, knownPaths: ReadonlySet<string>): void {
  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
    if (!knownPaths.has(path)) return sendNotFound(request, reply);
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .headers(CORS_HEADERS)
        .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
        .header('access-control-allow-headers', 'If-None-Match, Accept-Encoding, Content-Type, Last-Event-ID')
        .header('access-control-max-age', '86400')
        .send();
    }
    reply.header('allow', 'GET, HEAD, OPTIONS');
    return send(reply, new ProxyError('METHOD_NOT_ALLOWED'));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      return send(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
    }
    request.log.error({ reqId: request.id, err: error }, 'unhandled error');
    return send(reply, new ProxyError('INTERNAL'));
  });
}
