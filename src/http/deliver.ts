/**
 * deliver: headers and bytes for one resolution. Everything sent depends on the
 * canonical entry alone (plus Accept-Encoding, which is in Vary), so nothing a
 * client sends can change what another client receives. No JSON work here,
 * and no compression: variants are made by the memory tier when it stores.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { chooseEncoding } from '../cache/negotiate.js';
import { renderBody } from '../cache/render.js';
import { hitPayload } from '../cache/restamped-variants.js';
import type { ProxyError } from '../errors/catalog.js';
import type { Resolution } from '../pipeline/resolver.js';
import { sendError } from './envelope-writer.js';
import { CORS_HEADERS, JSON_TYPE, downstreamMaxAge, hitHeaders, tagHeaders } from './header-block.js';

export { CORS_HEADERS } from './header-block.js';

/** Weak comparison (RFC 9110 13.1.2) of an If-None-Match header against our weak ETag. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const t = part.trim();
    if ((t.startsWith('W/') ? t.slice(2) : t) === opaque) return true;
  }
  return false;
}

/** Headers set earlier on a reply (Fastify's getHeaders()). */
export type EarlierHeaders = Record<string, string | number | string[] | undefined>;

function hasAny(headers: EarlierHeaders | null): headers is EarlierHeaders {
  if (headers === null) return false;
  for (const _ in headers) return true;
  return false;
}

/**
 * Writes one resolution straight to the socket: a single writeHead with a flat
 * header list and the precomputed bytes. A fresh 200 hit from the memory tier
 * uses its prebuilt header block (header-block.ts). `earlier`: headers set
 * before on a Fastify reply, carried over; `answer`: the pairs every API
 * answer carries (EnvelopeWriter.answerHeaders). Node omits the body of HEAD
 * responses and keeps content-length. Returns the status sent.
 */
export function deliverRaw(
  reqHeaders: IncomingHttpHeaders,
  out: ServerResponse,
  res: Resolution,
  now: number,
  head: number | null,
  earlier: EarlierHeaders | null,
  answer: readonly string[],
): number {
  const { entry, mem } = res;
  const inm = reqHeaders['if-none-match'];
  if (
    res.result === 'HIT' &&
    mem !== undefined &&
    entry.status === 200 &&
    !hasAny(earlier) &&
    !matchesEtag(inm, entry.etag)
  ) {
    const payload = hitPayload(mem, chooseEncoding(reqHeaders['accept-encoding']), now);
    out.writeHead(200, hitHeaders(entry, payload, now, head, answer));
    out.end(payload.body);
    return 200;
  }

  const fresh = res.result === 'HIT' || res.result === 'MISS';
  const maxAge = fresh ? downstreamMaxAge(entry, now) : 0;
  const headers: string[] = [
    'content-type',
    JSON_TYPE,
    'x-cache',
    res.result,
    'age',
    String(Math.max(0, Math.floor((now - entry.createdAt) / 1000))),
    'cache-control',
    res.result === 'BYPASS'
      ? 'no-store'
      : `public, max-age=${maxAge}${fresh && entry.immutable === true ? ', immutable' : ''}`,
    'etag',
    entry.etag,
    'vary',
    'Accept-Encoding',
    'access-control-allow-origin',
    CORS_HEADERS['access-control-allow-origin'],
    'access-control-expose-headers',
    CORS_HEADERS['access-control-expose-headers'],
    ...answer,
  ];
  if (head !== null) headers.push('x-chain-head', String(head));
  if (entry.tagHeader !== undefined) headers.push(...tagHeaders(entry.tagHeader));
  if (hasAny(earlier)) {
    for (const name in earlier) {
      const value = earlier[name];
      if (value !== undefined) headers.push(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
  }

  let status = entry.status;
  let body: Buffer | undefined;
  if (status === 200 && matchesEtag(inm, entry.etag)) {
    status = 304;
  } else {
    const encoding = chooseEncoding(reqHeaders['accept-encoding']);
    // A fresh upstream answer goes out as fetched; stored answers are re-stamped (≤ 1 s old).
    const fetchedNow = res.result === 'MISS' || res.result === 'BYPASS';
    if (mem !== undefined) {
      const payload = fetchedNow ? mem.raw(encoding) : hitPayload(mem, encoding, now);
      if (payload.encoding !== 'identity') headers.push('content-encoding', payload.encoding);
      body = payload.body;
    } else {
      body = fetchedNow ? entry.body : renderBody(entry, now);
    }
    headers.push('content-length', String(body.length));
  }
  out.writeHead(status, headers);
  out.end(body);
  return status;
}

/** deliverRaw for a Fastify reply (hijacked: Fastify sends nothing more). */
export function deliver(
  request: FastifyRequest,
  reply: FastifyReply,
  res: Resolution,
  now: number,
  head: number | null,
  answer: readonly string[],
): number {
  const earlier = reply.getHeaders();
  reply.hijack();
  return deliverRaw(request.headers, reply.raw, res, now, head, earlier, answer);
}

/** An error the proxy made (or relays with a normalized envelope), never stored: `X-Cache: ERROR`, counted by the caller. */
export function deliverError(reply: FastifyReply, err: ProxyError, head: number | null): void {
  sendError(reply, err, { head, counted: true });
}
