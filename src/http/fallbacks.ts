/**
 * Everything that is not a catalogue GET/HEAD: CORS preflight, 405 for other
 * methods on known paths, 404 for unknown paths, and Fastify's own errors —
 * all as `{code, msg, data}` envelopes. A known path serves GET and HEAD
 * unless `methods` names its own (its Allow header and 405 message say so).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProxyError } from '../errors/catalog.js';
import { CORS_HEADERS } from './deliver.js';

const send = (reply: FastifyReply, err: ProxyError) =>
  reply.code(err.status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').headers(CORS_HEADERS).send(err.toBody());

/** Methods (besides OPTIONS) of the known paths that do not serve GET and HEAD. */
export type PathMethods = ReadonlyMap<string, readonly string[]>;

interface Refusal {
  allow: string;
  msg: string | undefined;
}

const DEFAULT_REFUSAL: Refusal = { allow: 'GET, HEAD, OPTIONS', msg: undefined };

function refusalOf(methods: readonly string[]): Refusal {
  return { allow: [...methods, 'OPTIONS'].join(', '), msg: `method not allowed; use ${methods.join(' or ')}` };
}

/** The answer to an unknown path (also what non-operators get on operator routes). */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
  return send(reply, new ProxyError('ROUTE_NOT_FOUND', `no such endpoint: ${path.slice(0, 80)}`));
}

export function registerFallbacks(app: FastifyInstance, knownPaths: ReadonlySet<string>, methods: PathMethods = new Map()): void {
  const refusals = new Map([...methods].map(([path, m]) => [path, refusalOf(m)]));
  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
    if (!knownPaths.has(path)) return sendNotFound(request, reply);
    const refusal = refusals.get(path) ?? DEFAULT_REFUSAL;
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .headers(CORS_HEADERS)
        .header('access-control-allow-methods', refusal.allow)
        .header('access-control-allow-headers', 'If-None-Match, Accept-Encoding, Content-Type, Last-Event-ID, X-API-Key')
        .header('access-control-max-age', '86400')
        .send();
    }
    reply.header('allow', refusal.allow);
    return send(reply, new ProxyError('METHOD_NOT_ALLOWED', refusal.msg));
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
