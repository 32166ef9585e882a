/**
 * The one writer of `{code, msg, data}` envelopes the proxy makes itself
 * (errors, refusals, 404/405, readiness, the batch answer): JSON content
 * type, `Cache-Control: no-store`, the CORS headers, `X-Cache`,
 * `X-Chain-Head` when given, `Retry-After` on every 503, `X-Request-Id`, and
 * the headers every API answer carries (`X-Chainproxy-Upstream: simulator`
 * when the upstream is the built-in simulator). Three sinks: a Fastify reply
 * (its hooks still run), a raw ServerResponse, and a whole HTTP/1.1 response
 * text for a bare socket.
 *
 * X-Cache by serve.ts's rule for envelopes: an error envelope (status 400 and
 * up) says `ERROR`, any other envelope `BYPASS` (made now, never stored). Every
 * error envelope is reported to the epilogue (counted and logged there as a
 * client answer with cache `ERROR`, by the path asked) unless its caller is
 * the epilogue or the answer is no client answer (`counted`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { RETRY_AFTER_503_SECONDS, type ProxyError } from '../errors/catalog.js';
import { CORS_HEADERS, JSON_TYPE, NO_STORE } from './header-block.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { envelopeVerdict } from './serve.js';

/** Where error envelopes are reported (Epilogue.envelope): the URL asked, status, seconds, request id. */
export type EnvelopeReport = (path: string | undefined, status: number, seconds: number, id: string) => void;

export interface EnvelopeOptions {
  /** X-Chain-Head (omitted when null). */
  head?: number | null;
  /** More header pairs, lower-case names; one named here replaces the default of that name. */
  extra?: readonly string[];
  /** The epilogue counts this answer itself (or it is no client answer, like /readyz): not reported. */
  counted?: boolean;
  /** X-Request-Id (default: the request's, else a new one). */
  id?: string;
}

const NONE: EnvelopeOptions = {};
const DECORATOR = 'envelopeWriter';

export class EnvelopeWriter {
  /** Header pairs of every API answer, hits included (precomputed: nothing per request). */
  readonly answerHeaders: readonly string[];
  readonly #defaults: readonly string[];
  #report: EnvelopeReport | null = null;

  constructor(o: { upstreamIsSimulator: boolean }) {
    this.answerHeaders = o.upstreamIsSimulator ? ['x-chainproxy-upstream', 'simulator'] : [];
    this.#defaults = [
      'content-type',
      JSON_TYPE,
      'cache-control',
      NO_STORE,
      'access-control-allow-origin',
      CORS_HEADERS['access-control-allow-origin'],
      'access-control-expose-headers',
      CORS_HEADERS['access-control-expose-headers'],
      ...this.answerHeaders,
    ];
  }

  /** Error envelopes are reported from now on (before: not reported). */
  reportTo(report: EnvelopeReport): void {
    this.#report = report;
  }

  /** Reports one error answer written for `path` (the bare-socket sink's callers report through this). */
  count(path: string | undefined, status: number, seconds = 0, id = requestIdOf(undefined)): void {
    if (status >= 400) this.#report?.(path, status, seconds, id);
  }

  /** The header pairs of an envelope of `length` bytes. */
  headers(status: number, length: number, o: EnvelopeOptions = NONE): string[] {
    const extra = o.extra ?? [];
    const named = (name: string): boolean => {
      for (let i = 0; i < extra.length; i += 2) if (extra[i] === name) return true;
      return false;
    };
    const out: string[] = [];
    const d = this.#defaults;
    for (let i = 0; i < d.length; i += 2) if (extra.length === 0 || !named(d[i]!)) out.push(d[i]!, d[i + 1]!);
    out.push('x-cache', envelopeVerdict(status));
    if (o.head !== undefined && o.head !== null) out.push('x-chain-head', String(o.head));
    if (status === 503 && !named('retry-after')) out.push('retry-after', RETRY_AFTER_503_SECONDS);
    if (o.id !== undefined) out.push(REQUEST_ID_HEADER, o.id);
    out.push(...extra, 'content-length', String(length));
    return out;
  }

  /** Through a Fastify reply. */
  send(reply: FastifyReply, status: number, body: Buffer, o: EnvelopeOptions = NONE): FastifyReply {
    const id = o.id ?? reply.request.id;
    const h = this.headers(status, body.length, { ...o, id });
    reply.code(status);
    for (let i = 0; i < h.length; i += 2) reply.header(h[i]!, h[i + 1]!);
    if (o.counted !== true) this.count(reply.request.raw.url, status, reply.elapsedTime / 1000, id);
    return reply.send(body);
  }

  /** Straight to a response no framework owns (pre-router refusals, the drain's cut). */
  write(res: ServerResponse, status: number, body: Buffer, o: EnvelopeOptions = NONE): void {
    const id = o.id ?? requestIdOf(res.req.headers[REQUEST_ID_HEADER]);
    res.writeHead(status, this.headers(status, body.length, { ...o, id }));
    res.end(body);
    if (o.counted !== true) this.count(res.req.url, status, 0, id);
  }

  /**
   * A whole HTTP/1.1 response closing the connection, for a socket with no response object (not counted: see count()).
   */
  rawResponse(status: number, body: Buffer, o: EnvelopeOptions = NONE): string {
    const h = this.headers(status, body.length, { ...o, extra: [...(o.extra ?? []), 'connection', 'close'] });
    let text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
    for (let i = 0; i < h.length; i += 2) text += `${h[i]}: ${h[i + 1]}\r\n`;
    return `${text}\r\n${body.toString('utf8')}`;
  }
}

/** Makes `writer` the one every route of `app` (and its plugins) answers envelopes with. */
export function installEnvelopeWriter(app: FastifyInstance, writer: EnvelopeWriter): void {
  app.decorate(DECORATOR, writer);
}

/** The writer installed on the server of `reply`. */
export function writerOf(reply: FastifyReply): EnvelopeWriter {
  return reply.server.getDecorator<EnvelopeWriter>(DECORATOR);
}

/** An envelope through the reply's installed writer. */
export function sendEnvelope(reply: FastifyReply, status: number, body: Buffer, o?: EnvelopeOptions): FastifyReply {
  return writerOf(reply).send(reply, status, body, o);
}

/** A ProxyError's envelope through the reply's installed writer. */
export function sendError(reply: FastifyReply, err: ProxyError, o?: EnvelopeOptions): FastifyReply {
  return writerOf(reply).send(reply, err.status, err.toBody(), o);
}
