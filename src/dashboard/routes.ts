/**
 * GET /dashboard (the status page) and GET /dashboard/data.json (request
 * counters for its rates), operator-only through an injected gate.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { envelopeBody, OPERATOR_FORBIDDEN } from '../errors/catalog.js';
import { trafficSnapshot } from './data.js';
import type { OperatorGate } from './gate.js';
import { DASHBOARD_HTML } from './page.js';

export const DASHBOARD_PATHS = ['/dashboard', '/dashboard/data.json'] as const;

export interface DashboardDeps {
  allowed: OperatorGate;
  registry: Registry;
}

const FORBIDDEN_BODY = envelopeBody(OPERATOR_FORBIDDEN.code, OPERATOR_FORBIDDEN.msg);

export function registerDashboard(app: FastifyInstance, deps: DashboardDeps): void {
  const page = Buffer.from(DASHBOARD_HTML);
  const forbid = (reply: import('fastify').FastifyReply) =>
    reply.code(OPERATOR_FORBIDDEN.status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(FORBIDDEN_BODY);

  app.get('/dashboard', (request, reply) => {
    if (!deps.allowed(request)) return forbid(reply);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:")
      .header('x-frame-options', 'DENY')
      .send(page);
  });
  app.get('/dashboard/data.json', async (request, reply) => {
    if (!deps.allowed(request)) return forbid(reply);
    const snapshot = await trafficSnapshot(deps.registry);
    return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(envelopeBody(0, 'success', snapshot));
  });
}
