/**
 * The operator gate: `/metrics`, `/status` and any other operator-only route
 * are served only to client addresses in ADMIN_ALLOW. The address is Fastify's
 * `request.ip`, i.e. resolved through TRUST_PROXY: a public client forwarded by
 * a trusted load balancer is that public client, not the balancer's private
 * address. Everyone else gets exactly what an unknown path gets (the 404
 * envelope of the not-found handler), so the routes' existence is not revealed.
 *
 * Usage on a route: `app.get('/dashboard', { onRequest: adminOnly(gate) }, handler)`.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendNotFound } from './fallbacks.js';

/** Named ranges, as TRUST_PROXY understands them (proxy-addr's names). */
const NAMED: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Default ADMIN_ALLOW: loopback and the private ranges. */
export const DEFAULT_ADMIN_ALLOW: readonly string[] = ['loopback', 'uniquelocal'];

export type AdminGate = (request: Pick<FastifyRequest, 'ip'>) => boolean;

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The address with an IPv4-mapped IPv6 form (`::ffff:10.0.0.1`) unwrapped. */
function plainAddress(ip: string): string {
  return MAPPED_V4.exec(ip)?.[1] ?? ip;
}

/** A block list of the entries (addresses, CIDRs, the names above); entries are validated by the config. */
export function allowList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries.flatMap((e) => NAMED[e] ?? [e])) {
    const slash = entry.indexOf('/');
    const ip = slash < 0 ? entry : entry.slice(0, slash);
    const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (slash < 0) list.addAddress(ip, family);
    else list.addSubnet(ip, Number(entry.slice(slash + 1)), family);
  }
  return list;
}

/** `(request) => boolean`: whether the request's client address is in `entries`. */
export function createAdminGate(entries: readonly string[]): AdminGate {
  const list = allowList(entries);
  return (request) => {
    const ip = plainAddress(request.ip ?? '');
    const family = isIP(ip);
    if (family === 0) return false;
    return list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** An onRequest/preHandler hook: non-operators get the unknown-path 404 envelope. */
export function adminOnly(gate: AdminGate) {
  return function adminOnlyHook(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    if (gate(request)) {
      done();
      return;
    }
    void sendNotFound(request, reply);
  };
}
