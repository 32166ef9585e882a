/**
 * deliver: headers and bytes for one resolution. Everything sent depends on the
 * canonical entry alone (plus Accept-Encoding, which is in Vary), so nothing a
 * client sends can change what another client receives. No JSON work here.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CacheResult } from '../cache/types.js';
import { chooseEncoding } from '../cache/negotiate.js';
import { renderBody } from '../cache/render.js';
import type { ProxyError } from '../errors/catalog.js';
import type { Resolution } from '../pipeline/resolver.js';

export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'X-Cache, Age, ETag, X-Chain-Head, X-Request-Id, Retry-After',
} as const;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Weak comparison (RFC 9110 13.1.2) of an If-None-Match header against our weak ETag. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const t = part.trim();
    if ((t.startsWith('W/') ? t.slice(2) : t) === opaque) return true;
  }
  return false;
}

export function deliver(request: FastifyRequest, reply: FastifyReply, res: Resolution, now: number, head: number | null): void {
  const { entry } = res;
  const fresh = res.result === 'HIT' || res.result === 'MISS';
  const maxAge = fresh ? Math.max(0, Math.ceil((entry.freshUntil - now) / 1000)) : 0;
  reply
    .code(entry.status)
    .header('content-type', JSON_TYPE)
    .header('x-cache', res.result)
    .header('age', String(Math.max(0, Math.floor((now - entry.createdAt) / 1000))))
    .header('cache-control', res.result === 'BYPASS' ? 'no-store' : `public, max-age=${maxAge}`)
    .header('etag', entry.etag)
    .header('vary', 'Accept-Encoding')
    .headers(CORS_HEADERS);
  if (head !== null) reply.header('x-chain-head', String(head));

  if (entry.status === 200 && matchesEtag(request.headers['if-none-match'], entry.etag)) {
    reply.code(304).send();
    return;
  }
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  // A fresh upstream answer goes out as fetched; stored answers are re-stamped (≤ 1 s old).
  const fetchedNow = res.result === 'MISS' || res.result === 'BYPASS';
  if (res.mem !== undefined) {
    const payload = fetchedNow ? res.mem.raw(encoding) : res.mem.payload(encoding, now);
    if (payload.encoding !== 'identity') reply.header('content-encoding', payload.encoding);
    reply.send(payload.body);
  } else {
    reply.send(fetchedNow ? entry.body : renderBody(entry, now));
  }
}

/** An error the proxy made (or relays with a normalized envelope), never stored. */
export function deliverError(reply: FastifyReply, err: ProxyError, result: CacheResult, head: number | null): void {
  reply
    .code(err.status)
    .header('content-type', JSON_TYPE)
    .header('x-cache', result)
    .header('cache-control', 'no-store')
    .headers(CORS_HEADERS);
  if (head !== null) reply.header('x-chain-head', String(head));
  reply.send(err.toBody());
}
