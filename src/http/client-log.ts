/**
 * Requests forwarded to a passthrough backend are logged with their client:
 * their request logger carries `client` (the address as TRUST_PROXY resolves
 * it, the one X-Forwarded-For ends with), so the access-log line and any
 * error line of such a request say whom the backend served. Read as the
 * request arrives, the address is kept by the socket (Node caches it), so
 * X-Forwarded-For still has it if the client goes while the request is sent on.
 */
import type { FastifyInstance } from 'fastify';

/** `under`: whether a URL (path and query as received) lies under a passthrough prefix served now. */
export function registerClientLog(app: FastifyInstance, under: (url: string) => boolean): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (under(request.raw.url ?? '')) request.log = request.log.child({ client: request.ip });
    done();
  });
}
