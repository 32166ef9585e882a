/**
 * GET /openapi.json: operators (ADMIN_ALLOW) get the full document, everyone
 * else the public one without the operator paths. Both serialized at start
 * and again when a reload changes them (policies, pages); the operator's copy is never stored by shared caches.
 */
import type { FastifyInstance } from 'fastify';
import type { AdminGate } from './admin-gate.js';
import { cacheControl } from './header-block.js';
import { OPENAPI_PATH } from '../catalogue/paths.js';
import type { OpenApiDocument } from '../openapi/types.js';

export interface OpenApiDocuments {
  full: OpenApiDocument;
  public: OpenApiDocument;
}

/** Returns the function that replaces the documents served. */
export function registerOpenApiRoute(
  app: FastifyInstance,
  docs: OpenApiDocuments,
  adminGate: AdminGate,
): (next: OpenApiDocuments) => void {
  let full = Buffer.from(JSON.stringify(docs.full));
  let open = Buffer.from(JSON.stringify(docs.public));
  app.get(OPENAPI_PATH, (request, reply) => {
    const operator = adminGate(request);
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', operator ? cacheControl(null, false, 'private') : cacheControl(300))
      .header('access-control-allow-origin', '*')
      .send(operator ? full : open);
  });
  return (next) => {
    full = Buffer.from(JSON.stringify(next.full));
    open = Buffer.from(JSON.stringify(next.public));
  };
}
