/**
 * GET /dashboard (the status page) and GET /dashboard/data.json (request
 * counters for its rates), operator-only through the admin gate: anyone else
 * gets the 404 envelope of an unknown path, like /metrics and /status.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { envelopeBody } from '../errors/catalog.js';
import { adminOnly, type AdminGate } from '../http/admin-gate.js';
import { trafficSnapshot } from './data.js';
import { DASHBOARD_HTML } from './page.js';

export const DASHBOARD_PATHS = ['/dashboard', '/dashboard/data.json'] as const;

export interface DashboardDeps {
  adminGate: AdminGate;
  registry: Registry;
}

export function registerDashboard(app: FastifyInstance, deps: DashboardDeps): void {
  const page = Buffer.from(DASHBOARD_HTML);
  const onRequest = adminOnly(deps.adminGate);
  app.get('/dashboard', { onRequest }, (_request, reply) => {
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:")
      .header('x-frame-options', 'DENY')
      .send(page);
  });
  app.get('/dashboard/data.json', { onRequest }, async (_request, reply) => {
    const snapshot = await trafficSnapshot(deps.registry);
    return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(envelopeBody(0, 'success', snapshot));
  });
}
