/**
 * GET /dashboard (the status page), GET /dashboard/data.json (request
 * counters) and GET /dashboard/history.json (the last 15 minutes, sampled once
 * a second; `?after=<ms>` returns only newer points), operator-only through
 * the admin gate: anyone else gets the 404 envelope of an unknown path, like
 * /metrics and /status.
 */
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../config/version.js';
import type { Registry } from 'prom-client';
import { envelopeBody, ERRORS } from '../errors/catalog.js';
import { adminOnly, type AdminGate } from '../http/admin-gate.js';
import { trafficSnapshot } from './data.js';
import { History } from './history.js';
import { DASHBOARD_HTML } from './page.js';

export const DASHBOARD_PATHS = ['/dashboard', '/dashboard/data.json', '/dashboard/history.json'] as const;

export interface DashboardDeps {
  adminGate: AdminGate;
  registry: Registry;
  /** Clock of the history (tests inject one); Date.now by default. */
  clock?: () => number;
}

export function registerDashboard(app: FastifyInstance, deps: DashboardDeps): void {
  const page = Buffer.from(DASHBOARD_HTML);
  const onRequest = adminOnly(deps.adminGate);
  app.get('/dashboard', { onRequest }, (_request, reply) => {
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:",
      )
      .header('x-frame-options', 'DENY')
      .send(page);
  });
  const history = new History(deps.registry, deps.clock ?? Date.now);
  history.start();
  app.addHook('onClose', async () => history.stop());
  const meta = { version: VERSION, startedAt: (deps.clock ?? Date.now)() };
  app.get('/dashboard/history.json', { onRequest }, async (request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store');
    const after = new URL(request.url, 'http://localhost').searchParams.get('after');
    if (after !== null && !/^\d{1,16}$/.test(after)) {
      const msg =
        `${ERRORS.BAD_PARAMETER.msg} after: expected a time in ms ` +
        `since the epoch, got ${JSON.stringify(after.slice(0, 40))}`;
      return reply.code(ERRORS.BAD_PARAMETER.status).send(envelopeBody(ERRORS.BAD_PARAMETER.code, msg));
    }
    return reply.send(envelopeBody(0, 'success', { ...meta, ...history.view(after === null ? 0 : Number(after)) }));
  });
  app.get('/dashboard/data.json', { onRequest }, async (_request, reply) => {
    const snapshot = await trafficSnapshot(deps.registry);
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(envelopeBody(0, 'success', snapshot));
  });
}
