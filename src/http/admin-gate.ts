/**
 * The operator gate: `/metrics`, `/status` and any other operator-only route
 * are served only to client addresses in ADMIN_ALLOW. The address is Fastify's
 * `request.ip`, i.e. resolved through TRUST_PROXY: a public client forwarded by
 * a trusted load balancer is that public client, not the balancer's private
 * address. Everyone else is handed to the not-found handler (fallbacks.ts),
 * so they get exactly what an unknown path gets and the routes' existence is
 * not revealed.
 *
 * Usage on a route: `app.get('/dashboard', { onRequest: adminOnly(gate) }, handler)`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AddressList } from '../common/address-list.js';

export type AdminGate = (request: Pick<FastifyRequest, 'ip'>) => boolean;

/** `(request) => boolean`: whether the request's client address is in `entries`. */
export function createAdminGate(entries: readonly string[]): AdminGate {
  const list = new AddressList(entries);
  return (request) => list.has(request.ip ?? '');
}

/** An onRequest/preHandler hook: non-operators get the unknown-path answer. */
export function adminOnly(gate: AdminGate) {
  return function adminOnlyHook(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    if (gate(request)) {
      done();
      return;
    }
    reply.callNotFound();
  };
}
