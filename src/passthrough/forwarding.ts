/**
 * What a legacy backend learns about the client. The proxy's own credentials
 * (X-API-Key, whatever its value) never leave it. X-Forwarded-For is the hop
 * chain the proxy believes: the client as resolved through TRUST_PROXY, the
 * trusted hops after it, and the socket peer; claims further left are
 * dropped. X-Forwarded-Proto and -Host are Fastify's reading (the forwarded
 * values from a trusted peer, else the socket and Host header). Any other
 * forwarding header (X-Forwarded-*, X-Real-IP, Forwarded) is relayed only
 * from a trusted peer.
 */
import type { FastifyRequest } from 'fastify';
import type { AddressList } from '../common/address-list.js';

type Headers = Record<string, string | string[] | number | undefined>;

/** Credentials the proxy consumes: removed from every forwarded request. */
const CONSUMED: readonly string[] = ['x-api-key'];

function isForwarding(name: string): boolean {
  return name.startsWith('x-forwarded-') || name === 'x-real-ip' || name === 'forwarded';
}

export type ForwardingRequest = Pick<FastifyRequest, 'ip' | 'ips' | 'protocol' | 'host' | 'socket'>;

/**
 * Request headers the cached way does not forward: the proxy negotiates the
 * encoding, validates and decides freshness itself, and the backend's Host
 * is its own.
 */
const CACHED_WAY_DROP: ReadonlySet<string> = new Set([
  'host',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
  'range',
  'cache-control',
  'pragma',
  'content-length',
]);

/** The headers a cached-way fetch sends for the request that leads it (hop-by-hop ones removed by the caller). */
export function cachedWayHeaders<H extends Headers>(request: ForwardingRequest, headers: H, trusted: AddressList): H {
  const own: Headers = {};
  for (const name in headers) if (!CACHED_WAY_DROP.has(name)) own[name] = headers[name];
  return forwardingHeaders(request, own, trusted) as H;
}

/** `headers` (lower-cased names, as Node parses them) rewritten for the backend. */
export function forwardingHeaders<H extends Headers>(request: ForwardingRequest, headers: H, trusted: AddressList): H {
  const peerTrusted = trusted.has(request.socket.remoteAddress ?? '');
  const out: Headers = {};
  for (const name in headers) {
    if (CONSUMED.includes(name)) continue;
    if (isForwarding(name) && !peerTrusted) continue;
    out[name] = headers[name];
  }
  // Fastify's ips: the socket peer first, then each believed hop, the client last.
  const chain = request.ips ?? [request.ip];
  out['x-forwarded-for'] = [...chain].reverse().join(', ');
  out['x-forwarded-proto'] = request.protocol;
  out['x-forwarded-host'] = request.host;
  return out as H;
}
