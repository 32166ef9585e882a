/**
 * The status, header list and bytes of one resolution. Everything sent
 * depends on the canonical entry alone (plus Accept-Encoding, which is in
 * Vary, and If-None-Match), so nothing a client sends can change what another
 * client receives. No JSON work here, and no compression: variants are made by
 * the memory tier when it stores. Headers come from the one builder
 * (header-block.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { chooseEncoding } from '../cache/negotiate.js';
import { renderBody } from '../cache/render.js';
import { hitPayload } from '../cache/restamped-variants.js';
import type { Resolution } from '../pipeline/resolver.js';
import { hitHeaders, resolutionHeaders } from './header-block.js';

/** Headers set earlier on a reply (Fastify's getHeaders()). */
export type EarlierHeaders = Record<string, string | number | string[] | undefined>;

/** How an answer goes out on HTTP. */
export interface Wire {
  reqHeaders: IncomingHttpHeaders;
  /** Headers set before on the reply, carried over (a fresh hit then gets a list built now). */
  earlier: EarlierHeaders | null;
  /** The pairs every API answer carries (EnvelopeWriter.answerHeaders). */
  answer: readonly string[];
  /** X-Chain-Head (null: omitted). */
  head: number | null;
  /** X-Request-Id (request-id.ts). */
  id: string;
}

export interface Shaped {
  status: number;
  /** Flat header pairs (shared for a fresh hit: do not modify). */
  headers: string[];
  /** Undefined for a 304. */
  body: Buffer | undefined;
}

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

function hasAny(headers: EarlierHeaders | null): headers is EarlierHeaders {
  if (headers === null) return false;
  for (const _ in headers) return true;
  return false;
}

/** A fresh upstream answer goes out as fetched; stored answers are re-stamped (≤ 1 s old). */
const fetchedNow = (res: Resolution): boolean => res.result === 'MISS' || res.result === 'BYPASS';

/** The identity body of a resolution served at `now`, as a batch item carries it. */
export function bodyOf(res: Resolution, now: number): Buffer {
  return fetchedNow(res) ? res.entry.body : renderBody(res.entry, now);
}

/**
 * A fresh 200 hit from the memory tier uses its prebuilt header block; any
 * other answer a header list built now. Node omits the body of HEAD
 * responses and keeps content-length.
 */
export function shapeResolution(res: Resolution, now: number, wire: Wire): Shaped {
  const { entry, mem } = res;
  const { reqHeaders, earlier, head } = wire;
  const inm = reqHeaders['if-none-match'];
  if (
    res.result === 'HIT' &&
    mem !== undefined &&
    entry.status === 200 &&
    !hasAny(earlier) &&
    !matchesEtag(inm, entry.etag)
  ) {
    const payload = hitPayload(mem, chooseEncoding(reqHeaders['accept-encoding']), now);
    return { status: 200, headers: hitHeaders(entry, payload, now, head, wire.answer, wire.id), body: payload.body };
  }

  const headers = resolutionHeaders(res.result, entry, now, head, wire.answer, wire.id);
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
    if (mem !== undefined) {
      const payload = fetchedNow(res) ? mem.raw(encoding) : hitPayload(mem, encoding, now);
      if (payload.encoding !== 'identity') headers.push('content-encoding', payload.encoding);
      body = payload.body;
    } else {
      body = bodyOf(res, now);
    }
    headers.push('content-length', String(body.length));
  }
  return { status, headers, body };
}
