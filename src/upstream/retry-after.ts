/**
 * A 503 the proxy makes (upstream queue full, shutting down) tells clients when
 * to come back: `Retry-After: 1` unless the reply already has one. Runs only on
 * replies sent through Fastify (errors), never on the hijacked hit path.
 */
import type { FastifyInstance } from 'fastify';

export const RETRY_AFTER_SECONDS = 1;

export function registerRetryAfter(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    done(null, payload);
  });
}
