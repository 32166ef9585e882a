/**
 * Interim operator check for the status page: the client address is loopback
 * or private (RFC 1918, unique local, link local). The page takes its gate as
 * a plain `(request) => boolean`, so a stronger one replaces this without
 * touching the page.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('169.254.0.0', 16, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** True for loopback and private addresses (IPv4-mapped IPv6 included). */
export function isLoopbackOrPrivate(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const addr = mapped?.[1] ?? ip;
  const family = isIP(addr);
  if (family === 0) return false;
  return PRIVATE.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}

export type OperatorGate = (request: FastifyRequest) => boolean;

export const privateNetworkGate: OperatorGate = (request) => isLoopbackOrPrivate(request.ip);
