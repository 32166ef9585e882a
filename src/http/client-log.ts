/**
 * Requests forwarded to a passthrough backend are logged with their client:
 * their request logger carries `client` (the address as TRUST_PROXY resolves
 * it, the one X-Forwarded-For ends with), so the access-log line and any
 * error line of such a request say whom the backend served. Read as the
 * request arrives, the address is kept by the socket (Node caches it), so
 * X-Forwarded-For still has it if the client goes while the request is sent on.
 */
import type { FastifyInstance } from 'fastify';

/** Whether `url` falls under one of `prefixes` (`/api` covers `/api`, `/api/…`, `/api?…`). */
function underPrefix(url: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) {
    if (!url.startsWith(p)) continue;
    const next = url.charCodeAt(p.length);
    if (Number.isNaN(next) || next === 0x2f || next === 0x3f) return true;
  }
  return false;
}

export function registerClientLog(app: FastifyInstance, prefixes: readonly string[]): void {
  if (prefixes.length === 0) return;
  app.addHook('onRequest', (request, _reply, done) => {
    if (underPrefix(request.raw.url ?? '', prefixes)) request.log = request.log.child({ client: request.ip });
    done();
  });
}
