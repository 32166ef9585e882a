/**
 * The operator gates: `/metrics`, `/status`, the status page and its data are
 * served only to client addresses in ADMIN_ALLOW, `/purge` only to those in
 * PURGE_ALLOW. The address is Fastify's `request.ip`, i.e. resolved through
 * TRUST_PROXY: a public client forwarded by a trusted load balancer is that
 * public client, not the balancer's private address.
 *
 * Both also ask that the request's `Host` be one no other site's page can
 * send (DNS rebinding: a page whose name is rebound to this proxy's address
 * sends its own name as Host): an IP literal, `localhost`, or a name in
 * ADMIN_HOSTS. Everyone else is handed to the not-found handler
 * (fallbacks.ts), so they get exactly what an unknown path gets and the
 * routes' existence is not revealed.
 *
 * The three lists live in one object (`OperatorAccess`) that can swap them
 * while the proxy runs; the gates read them on every request.
 *
 * Usage on a route: `app.get('/dashboard', { onRequest: adminOnly(access.admin) }, handler)`.
 */
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AddressList } from '../common/address-list.js';
import type { OperatorGate } from '../catalogue/paths.js';

type GateRequest = Pick<FastifyRequest, 'ip' | 'headers'>;
export type AdminGate = (request: GateRequest) => boolean;

export interface OperatorLists {
  /** ADMIN_ALLOW: addresses of the read-only operator routes. */
  adminAllow: readonly string[];
  /** PURGE_ALLOW: addresses that may purge. */
  purgeAllow: readonly string[];
  /** ADMIN_HOSTS: host names accepted in `Host` besides IP literals and localhost. */
  adminHosts: readonly string[];
}

const PORT = /^:\d{1,5}$/;

/** A host name as compared: lower case, without a trailing dot. */
function hostName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * Whether a `Host` header (with an optional port) is an IP literal (IPv4, or
 * IPv6 in brackets), `localhost`, or one of `names` (compared by hostName).
 */
export function operatorHost(host: string | undefined, names: ReadonlySet<string>): boolean {
  if (host === undefined || host === '') return false;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    const rest = host.slice(close + 1);
    return close > 0 && isIP(host.slice(1, close)) === 6 && (rest === '' || PORT.test(rest));
  }
  const colon = host.indexOf(':');
  if (colon >= 0 && !PORT.test(host.slice(colon))) return false;
  const name = hostName(colon < 0 ? host : host.slice(0, colon));
  return isIP(name) === 4 || name === 'localhost' || names.has(name);
}

export class OperatorAccess {
  #admin!: AddressList;
  #purge!: AddressList;
  #hosts!: ReadonlySet<string>;

  constructor(lists: OperatorLists) {
    this.set(lists);
  }

  /** Replaces the lists (entries validated with the config). */
  set(lists: OperatorLists): void {
    this.#admin = new AddressList(lists.adminAllow);
    this.#purge = new AddressList(lists.purgeAllow);
    this.#hosts = new Set(lists.adminHosts.map(hostName));
  }

  /** Whether `request` passes `gate`: its Host, then its client address. */
  allows(gate: OperatorGate, request: GateRequest): boolean {
    if (!operatorHost(request.headers.host, this.#hosts)) return false;
    return (gate === 'purge' ? this.#purge : this.#admin).has(request.ip ?? '');
  }

  /** The gate of the read-only operator routes (ADMIN_ALLOW). */
  readonly admin: AdminGate = (request) => this.allows('admin', request);
  /** The gate of /purge (PURGE_ALLOW). */
  readonly purge: AdminGate = (request) => this.allows('purge', request);
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
