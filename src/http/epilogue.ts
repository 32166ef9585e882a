/**
 * The request epilogue: every answer serve() made (serve.ts), whichever
 * entrance asked, leaves through `finish`: charged to the rate limit when
 * nothing charged it before (the pre-router fast path; routed requests were
 * charged by the limiter's hook, with the same `admit`), shaped and written
 * (deliver.ts), counted in its entrance's request metric family, and logged
 * (ACCESS_LOG) with the request id its `X-Request-Id` header carries
 * (request-id.ts), and names the request's SERVER span (route, cache outcome;
 * made here for the fast path, which the router's entrance does not see:
 * tracing.ts) when tracing is on. Envelopes the writer makes on its own (404/405, refusals,
 * Fastify's errors) are counted and logged by `envelope`, the writer's report.
 * Nothing else counts an answer in the request metrics or logs it
 * (test/architecture/epilogue.unit.test.ts).
 *
 * A new entrance supplies only its labels: a `Family` (the metric that counts
 * its answers, with the one CountAnswer signature, and the log line's message
 * and field) and a label value per route (`exitOf`), then calls `finish`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { PartSummary } from '../cache/types.js';
import type { ChainView } from '../chain/types.js';
import type { AccessLog } from '../config/types.js';
import type { CountAnswer, Metrics, RequestResult } from '../metrics/types.js';
import type { PageMetrics } from '../pages/metrics.js';
import type { RateLimitGate } from '../ratelimit/index.js';
import type { Wire } from './answer.js';
import type { ClientAddress } from './client-address.js';
import { writeAnswer, writeResolution } from './deliver.js';
import type { EnvelopeWriter } from './envelope-writer.js';
import { admit, creditHeaders } from './rate-limit.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { envelopeVerdict, type Answer } from './serve.js';
import { tracing } from '../tracing/tracing.js';
import type { Tracing } from '../tracing/types.js';

/** A request metric family, and how its access-log lines name what was asked. */
export interface Family {
  count: CountAnswer;
  /** The log line's message (`request`, `page`, `batch`). */
  msg: string;
  /** The log field carrying the label (`endpoint`, `page`, `passthrough`). */
  field: string;
}

/** What an entrance supplies per route: its family and the label its answers are counted under. */
export interface Exit {
  readonly family: Family;
  readonly label: string;
}

export const exitOf = (family: Family, label: string): Exit => ({ family, label });

/** Counts nothing: for an answer whose parts are counted themselves (a batch). */
export const NOT_COUNTED: CountAnswer = () => {};

/** How an answer leaves. */
export type Outlet =
  /** Through Fastify (charged by the limiter's hook); envelopes go through the reply. */
  | { readonly kind: 'routed'; readonly request: FastifyRequest; readonly reply: FastifyReply }
  /** Before the router (the fast path): charged here, written straight to the response. */
  | { readonly kind: 'raw'; req: IncomingMessage; res: ServerResponse; name: string }
  /** A batch item: counted, written into the batch answer by its caller, logged with the batch. */
  | { readonly kind: 'item' }
  /** Already sent by its entrance (a relayed stream): counted and logged only. */
  | { readonly kind: 'sent'; readonly request: FastifyRequest };

/** More for the log line: its own fields, and whether it counts as a fresh hit for ACCESS_LOG=misses. */
export interface Note {
  fields: Readonly<Record<string, unknown>>;
  freshHit: boolean;
}

export interface EpilogueDeps {
  /** Whom a raw answer is charged to (the limiter's hook asks the same). */
  address: ClientAddress;
  accessLog: AccessLog;
  logger: Logger;
  chain: ChainView;
  writer: EnvelopeWriter;
  /** null: rate limiting is off. */
  gate: RateLimitGate | null;
  metrics: Metrics;
  pages: PageMetrics;
}

/** ACCESS_LOG: which answers get a line. */
export function isLogged(accessLog: AccessLog, freshHit: boolean): boolean {
  return accessLog === 'all' || (accessLog === 'misses' && !freshHit);
}

/** Milliseconds to 0.1 ms, for log lines. */
export const tenthsOfMs = (ms: number): number => Math.round(ms * 10) / 10;

/** `head:HIT,blocks:MISS,…` for access-log lines. */
function partsText(parts: readonly PartSummary[]): string {
  return parts.map((p) => `${p.name}:${p.cache}`).join(',');
}

const PAGES = 'pages/';

/** `tx/list` of `/tx/list?page=2`: the name a path is counted under (the metrics map unknown names to `other`). */
function nameOfPath(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return (q < 0 ? url : url.slice(0, q)).slice(1);
}

export class Epilogue {
  readonly endpoints: Family;
  readonly pages: Family;
  readonly #d: EpilogueDeps;
  /** How a raw answer goes out, refilled per answer (written synchronously: never shared across answers). */
  readonly #wire: Wire;
  /** null: tracing is off. */
  readonly #trace: Tracing | null = tracing();

  constructor(deps: EpilogueDeps) {
    this.#d = deps;
    const { metrics, pages } = deps;
    this.endpoints = { count: (l, s, c, t) => metrics.request(l, s, c, t), msg: 'request', field: 'endpoint' };
    this.pages = { count: (l, s, c, t) => pages.request(l, s, c, t), msg: 'page', field: 'page' };
    this.#wire = { reqHeaders: {}, earlier: null, answer: deps.writer.answerHeaders, head: null, id: '' };
    deps.writer.reportTo((path, status, seconds, id) => this.envelope(path, status, seconds, id));
  }

  /**
   * Sends `answer` (started at `started`, performance.now()) through `out`,
   * counts it under `exit` and logs it. Returns the status sent (for a raw
   * answer refused by the rate limit, its refusal's: counted by `envelope`).
   */
  finish(exit: Exit, answer: Answer<unknown>, started: number, out: Outlet, note?: Note): number {
    const d = this.#d;
    let status: number;
    let id: string;
    if (out.kind === 'routed') {
      id = out.request.id;
      status = writeAnswer(out.request, out.reply, answer, d.chain.bestHead(), d.writer.answerHeaders, id);
    } else if (out.kind === 'raw') {
      id = requestIdOf(out.req.headers[REQUEST_ID_HEADER]);
      const sent = this.#raw(out, answer, id);
      if (sent === 0) return 0;
      status = sent;
    } else if (out.kind === 'sent') {
      id = out.request.id;
      status = answer.status;
    } else {
      this.#count(exit, answer.status, answer.cache, started);
      return answer.status;
    }
    if (this.#trace !== null) {
      this.#trace.answered(out.kind === 'raw' ? out.req : out.request.raw, exit.label, answer.cache, status, started);
    }
    const seconds = this.#count(exit, status, answer.cache, started);
    if (isLogged(d.accessLog, note?.freshHit ?? answer.cache === 'HIT')) {
      const client = out.kind === 'raw' ? d.address.of(out.req) : out.request.ip;
      this.#log(exit, answer, status, seconds, id, client, note);
    }
    return status;
  }

  /** An error envelope the writer made outside `finish` (`path`: the URL asked): counted and logged. */
  envelope(path: string | undefined, status: number, seconds: number, id: string): void {
    const name = nameOfPath(path).slice(0, 80);
    const cache = envelopeVerdict(status);
    const exit = name.startsWith(PAGES)
      ? exitOf(this.pages, name.slice(PAGES.length))
      : exitOf(this.endpoints, name === '' ? 'other' : name);
    exit.family.count(exit.label, status, cache, seconds);
    if (!isLogged(this.#d.accessLog, false)) return;
    this.#d.logger.info(
      { reqId: id, [exit.family.field]: exit.label, cache, status, ms: tenthsOfMs(seconds * 1000) },
      exit.family.msg,
    );
  }

  #count(exit: Exit, status: number, cache: RequestResult, started: number): number {
    const seconds = (performance.now() - started) / 1000;
    exit.family.count(exit.label, status, cache, seconds);
    return seconds;
  }

  /** Charges and writes a raw answer (a hit): the status sent, or 0 when refused (the refusal is written). */
  #raw(out: Outlet & { kind: 'raw' }, answer: Answer<unknown>, id: string): number {
    const d = this.#d;
    const { req, res } = out;
    let credits: Record<string, string> | null = null;
    if (d.gate !== null) {
      const key = admit(d.gate, d.writer, res, d.address.of(req), req.headers['x-api-key'], out.name, id);
      if (key === null) return 0;
      credits = creditHeaders(d.gate, key);
    }
    if (answer.res === null) {
      d.writer.write(res, answer.status, answer.failure.body, { counted: true, id });
      return answer.status;
    }
    const wire = this.#wire;
    wire.reqHeaders = req.headers;
    wire.earlier = credits;
    wire.head = d.chain.bestHead();
    wire.id = id;
    return writeResolution(res, answer.res, answer.now, wire);
  }

  #log(
    exit: Exit,
    a: Answer<unknown>,
    status: number,
    seconds: number,
    id: string,
    client: string,
    note: Note | undefined,
  ): void {
    const res = a.res;
    const err = a.error ?? res?.error ?? null;
    const upstreamMs = res?.upstreamMs ?? undefined;
    this.#d.logger.info(
      {
        reqId: id,
        [exit.family.field]: exit.label,
        client,
        cache: a.cache,
        status,
        upstream: res?.upstream ?? undefined,
        upstreamMs: upstreamMs === undefined ? undefined : tenthsOfMs(upstreamMs),
        ms: tenthsOfMs(seconds * 1000),
        stale: res?.staleReason ?? undefined,
        parts: a.parts === null ? undefined : partsText(a.parts),
        err: (err?.message ?? a.failure?.message) || undefined,
        detail: err?.detail ?? undefined,
        ...note?.fields,
      },
      exit.family.msg,
    );
  }
}
