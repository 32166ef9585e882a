/**
 * GET /openapi.json: operators (ADMIN_ALLOW) get the full document, everyone
 * else the public one without the operator paths. Both serialized once at
 * start; the operator's copy is never stored by shared caches.
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

export function registerOpenApiRoute(app: FastifyInstance, docs: OpenApiDocuments, adminGate: AdminGate): void {
  const full = Buffer.from(JSON.stringify(docs.full));
  const open = Buffer.from(JSON.stringify(docs.public));
  app.get(OPENAPI_PATH, (request, reply) => {
    const operator = adminGate(request);
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', operator ? cacheControl(null, false, 'private') : cacheControl(300))
      .header('access-control-allow-origin', '*')
      .send(operator ? full : open);
  });
}
