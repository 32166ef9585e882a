/**
 * POST /purge (operator only, like /status): `?key=…`, `?tag=…` or
 * `?all=true`, with `soft=true` as an option (request.ts). Answers the
 * envelope with what was purged (purger.ts: `PurgeAnswer`); a bad request is
 * the 400 envelope naming the parameter.
 */
import type { FastifyInstance } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { ParamLimits } from '../catalogue/types.js';
import { envelopeBody, toProxyError } from '../errors/catalog.js';
import { adminOnly, type AdminGate } from '../http/admin-gate.js';
import { sendEnvelope, sendError } from '../http/envelope-writer.js';
import { PURGE_PATH } from '../http/paths.js';
import { rawQuery } from '../http/request-util.js';
import type { Purger } from './purger.js';
import { parsePurge } from './request.js';

export interface PurgeRouteDeps {
  purger: Purger;
  catalogue: Catalogue;
  limits: ParamLimits;
  adminGate: AdminGate;
}

export function registerPurgeRoute(app: FastifyInstance, deps: PurgeRouteDeps): void {
  app.post(PURGE_PATH, { onRequest: adminOnly(deps.adminGate) }, async (request, reply) => {
    try {
      const req = parsePurge(rawQuery(request.raw.url ?? ''), deps.catalogue, deps.limits);
      const answer = await deps.purger.purge(req);
      return sendEnvelope(reply, 200, envelopeBody(0, 'success', answer));
    } catch (err) {
      return sendError(reply, toProxyError(err));
    }
  });
}
