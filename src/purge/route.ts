/**
 * POST /purge (operator only, like /status): `?key=…`, `?tag=…` or
 * `?all=true`, with `soft=true` as an option (request.ts). Answers the
 * envelope with what was purged (purger.ts: `PurgeAnswer`); a bad request is
 * the 400 envelope naming the parameter; a browser's cross-origin request is
 * refused like a non-operator.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { ParamLimits } from '../endpoints/types.js';
import { envelopeBody, ProxyError, toProxyError } from '../errors/catalog.js';
import { adminOnly, type AdminGate } from '../http/admin-gate.js';
import { sendEnvelope, sendError } from '../http/envelope-writer.js';
import { PURGE_PATH } from '../catalogue/paths.js';
import { rawQuery } from '../http/request-util.js';
import type { Purger } from './purger.js';
import { parsePurge, type PassKeyOf } from './request.js';

export interface PurgeRouteDeps {
  purger: Purger;
  catalogue: Catalogue;
  limits: ParamLimits;
  adminGate: AdminGate;
  /** The cache key of a passthrough path (null: none configured). */
  passKey?: PassKeyOf | null;
}

/**
 * A browser's request from another origin (its `Origin`, or `Sec-Fetch-Site`,
 * says so): a page an operator opens must not purge through the operator's
 * address (cross-site request forgery). curl and scripts send neither.
 */
function crossOrigin(headers: FastifyRequest['headers']): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== headers.host;
  } catch {
    return true;
  }
}

export function registerPurgeRoute(app: FastifyInstance, deps: PurgeRouteDeps): void {
  const operator = adminOnly(deps.adminGate);
  const onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    // Refused like a non-operator: the answer of an unknown path.
    if (crossOrigin(request.headers))
      sendError(reply, new ProxyError('ROUTE_NOT_FOUND', `no such endpoint: ${PURGE_PATH}`));
    else operator(request, reply, done);
  };
  app.post(PURGE_PATH, { onRequest }, async (request, reply) => {
    try {
      const req = parsePurge(rawQuery(request.raw.url ?? ''), deps.catalogue, deps.limits, deps.passKey ?? null);
      const answer = await deps.purger.purge(req);
      return sendEnvelope(reply, 200, envelopeBody(0, 'success', answer));
    } catch (err) {
      return sendError(reply, toProxyError(err));
    }
  });
}
