/**
 * Headers and bytes of a composed page, written in one writeHead like the
 * single-endpoint hit path (src/http/deliver.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ComposedEntry } from '../pages/entry.js';
import { composedPayload } from '../pages/entry.js';
import { chooseEncoding } from '../cache/negotiate.js';
import { matchesEtag } from './deliver.js';
import { sendEnvelope } from './envelope-writer.js';
import { CORS_HEADERS, JSON_TYPE } from './header-block.js';

function write(reply: FastifyReply, status: number, headers: string[], body: Buffer | undefined): void {
  const earlier = reply.getHeaders();
  for (const name in earlier) {
    const value = earlier[name];
    if (value !== undefined) headers.push(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  if (body !== undefined) headers.push('content-length', String(body.length));
  reply.hijack();
  reply.raw.writeHead(status, headers);
  reply.raw.end(body);
}

/**
 * `Cache-Control: public, max-age=<smallest remaining part TTL>` (+ `immutable`
 * when every part is final); 304 on a matching If-None-Match. Returns the status.
 */
export function deliverPage(request: FastifyRequest, reply: FastifyReply, e: ComposedEntry, cache: string, now: number, head: number | null, answer: readonly string[]): number {
  const maxAge = Math.max(0, Math.ceil((e.freshUntil - now) / 1000));
  const headers: string[] = [
    'content-type', JSON_TYPE,
    'x-cache', cache,
    'age', String(Math.max(0, Math.floor((now - e.createdAt) / 1000))),
    'cache-control', cache === 'STALE' ? 'public, max-age=0' : `public, max-age=${maxAge}${e.immutable ? ', immutable' : ''}`,
    'etag', e.etag,
    'vary', 'Accept-Encoding',
    'access-control-allow-origin', CORS_HEADERS['access-control-allow-origin'],
    'access-control-expose-headers', CORS_HEADERS['access-control-expose-headers'],
    ...answer,
  ];
  if (head !== null) headers.push('x-chain-head', String(head));
  if (matchesEtag(request.headers['if-none-match'], e.etag)) {
    write(reply, 304, headers, undefined);
    return 304;
  }
  const payload = composedPayload(e, chooseEncoding(request.headers['accept-encoding']), now);
  if (payload.encoding !== 'identity') headers.push('content-encoding', payload.encoding);
  write(reply, e.status, headers, payload.body);
  return e.status;
}

/** An error envelope (a required part's own, or the proxy's), never cached. */
export function deliverPageError(reply: FastifyReply, status: number, body: Buffer, cache: string, head: number | null): number {
  sendEnvelope(reply, status, body, { cache, head });
  return status;
}
