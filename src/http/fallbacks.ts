/**
 * Everything no route answers, by the path registry (catalogue/paths.ts): CORS
 * preflight and 405 (with `Allow`) on known paths, 404 for unknown paths and
 * for operator paths asked by a non-operator (whatever the method), and
 * Fastify's own errors, all as `{code, msg, data}` envelopes.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProxyError } from '../errors/catalog.js';
import { CORS_HEADERS } from './header-block.js';
import { sendError } from './envelope-writer.js';
import {
  ALLOWED_REQUEST_HEADERS,
  allowOf,
  methodRefusalOf,
  type OperatorTest,
  type PathRegistry,
} from '../catalogue/paths.js';

function pathOf(request: FastifyRequest): string {
  return (request.raw.url ?? '/').split('?')[0] ?? '/';
}

/** The answer to an unknown path (also what non-operators get on operator routes, for every method). */
function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new ProxyError('ROUTE_NOT_FOUND', `no such endpoint: ${pathOf(request).slice(0, 80)}`));
}

export function registerFallbacks(app: FastifyInstance, registry: PathRegistry, access: OperatorTest): void {
  app.setNotFoundHandler((request, reply) => {
    const rule = registry.rule(pathOf(request));
    if (rule === undefined || (rule.operator !== null && !access.allows(rule.operator, request)))
      return sendNotFound(request, reply);
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .headers(CORS_HEADERS)
        .header('access-control-allow-methods', allowOf(rule))
        .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
        .header('access-control-max-age', '86400')
        .send();
    }
    return sendError(reply, new ProxyError('METHOD_NOT_ALLOWED', methodRefusalOf(rule)), {
      extra: ['allow', allowOf(rule)],
    });
  });
}

/**
 * The one error handler (a 4xx from parsing becomes the 400 envelope, anything else the 500 one). Set before any
 * route: a route takes the handler its scope has when Fastify creates it, and an awaited plugin registration
 * (passthrough) creates the routes queued before it.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      return sendError(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
    }
    request.log.error({ reqId: request.id, err: error }, 'unhandled error');
    return sendError(reply, new ProxyError('INTERNAL'));
  });
}
