/**
 * The address of a request's client, for the rate limit: the socket peer,
 * or, when the peer is a proxy listed in TRUST_PROXY, the X-Forwarded-For hop
 * the trusted chain reaches (walking right to left, the first address not
 * trusted, else the leftmost: proxy-addr's rule). One trust for the whole
 * proxy: Fastify's `request.ip` is computed with the same trust function
 * (`fastifyTrust`), so the routed path and the pre-router fast path agree.
 */
import type { IncomingMessage } from 'node:http';
import { AddressList } from '../common/address-list.js';

/** X-Forwarded-For hops, right to left (empty entries skipped). */
function hopsRightToLeft(header: string): string[] {
  const out: string[] = [];
  const parts = header.split(',');
  for (let i = parts.length - 1; i >= 0; i--) {
    const hop = parts[i]!.trim();
    if (hop !== '') out.push(hop);
  }
  return out;
}

export class ClientAddress {
  readonly #trusted: AddressList;
  /** Fastify's `trustProxy` option: this trust, or false when nothing is trusted. */
  readonly fastifyTrust: ((address: string) => boolean) | false;

  constructor(trustProxy: readonly string[]) {
    const trusted = new AddressList(trustProxy);
    this.#trusted = trusted;
    this.fastifyTrust = trusted.empty ? false : (address) => trusted.has(address);
  }

  of(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? '';
    if (this.#trusted.empty) return peer;
    const forwarded = req.headers['x-forwarded-for'];
    if (typeof forwarded !== 'string') return peer;
    if (!this.#trusted.has(peer)) return peer;
    let address = peer;
    for (const hop of hopsRightToLeft(forwarded)) {
      address = hop;
      if (!this.#trusted.has(hop)) break;
    }
    return address;
  }
}
