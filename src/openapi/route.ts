/** GET /openapi.json: the document serialized once at start. */
import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from './types.js';

export const OPENAPI_PATH = '/openapi.json';

export function registerOpenApiRoute(app: FastifyInstance, doc: OpenApiDocument): void {
  const body = Buffer.from(JSON.stringify(doc));
  app.get(OPENAPI_PATH, (_req, reply) => {
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('access-control-allow-origin', '*')
      .send(body);
  });
}
