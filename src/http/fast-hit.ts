/**
 * Fresh hits answered before Fastify's router. The API routes remember each
 * raw URL (path + query, byte for byte) that they validated and answered with
 * a fresh hit, with its canonical request; a later GET/HEAD with exactly that
 * URL is the same request after validation (canonicalization depends on the
 * URL and the fixed limits alone), so it is answered here through serve()
 * with the request parsed before (hits only), and leaves through the epilogue
 * like any answer (epilogue.ts: rate limit, the entry's prebuilt header block,
 * bytes, counting).
 * A key memory does not hold is read from the shared tier here too (one Redis
 * round trip, then the same rate limit and writing); when that is not a fresh
 * hit the request goes on to Fastify, which reads again. Anything else
 * (unknown URL, entry not fresh, shutting down)
 * goes on to Fastify unchanged and uncharged.
 *
 * Fastify hooks do not run for these requests: anything that must see every
 * API request belongs in the epilogue. Not used when ACCESS_LOG=all (a hit
 * then needs its log line). Composed pages are remembered the same way, looked
 * up by the page layer and counted under its exit (`PageHits`).
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { Resolution, Resolver } from '../pipeline/resolver.js';
import { exitOf, type Epilogue, type Exit, type Outlet } from './epilogue.js';
import { serve, servedShared, type Answer, type Entrance } from './serve.js';
import { tracing } from '../tracing/tracing.js';

export interface FastHitDeps {
  resolver: Resolver;
  clock: () => number;
  epilogue: Epilogue;
  /** URLs remembered (10 000; the oldest is forgotten first). */
  maxUrls?: number;
}

/** A page's own lookup (src/pages) and its exit for its remembered URLs. */
export interface PageHits {
  /** The fresh composed page as a HIT, or undefined (the page route decides). */
  hit(key: string, now: number): Resolution | undefined;
  exit: Exit;
}

interface Known {
  /** The name the rate limit prices it by (an endpoint's, a page's `pages/<name>`, a passthrough path's). */
  name: string;
  exit: Exit;
  /** serve() of the request parsed before, hits only (made once: nothing per request but the call). */
  answer: () => Answer<unknown> | null;
  /** The shared tier's fresh hit, read here (null: none to read). */
  second: () => Promise<Answer<unknown> | undefined> | null;
  /** Whether this request may be answered from the remembered one (absent: any GET or HEAD of the URL). */
  admits?: (req: IncomingMessage) => boolean;
}

/** A URL answered by another entrance's hits (passthrough): what `rememberHit` takes. */
export interface OtherHit {
  name: string;
  exit: Exit;
  answer: () => Answer<unknown> | null;
  admits: (req: IncomingMessage) => boolean;
}

const NO_SECOND = (): null => null;

const NEVER = (): never => {
  throw new Error('the fast path answers hits only');
};

/** An entrance of requests parsed before, answering hits only. */
function hitsOnly(hit: (req: CanonicalRequest, now: number) => Resolution | undefined): Entrance<CanonicalRequest> {
  return { parse: NEVER, hit, resolve: NEVER, partsOf: () => null };
}

/** Longer URLs are not remembered (they are rare and would cost memory). */
const MAX_URL_LENGTH = 512;

export class FastHits {
  readonly #d: FastHitDeps;
  readonly #max: number;
  readonly #urls = new Map<string, Known>();
  readonly #endpoints: Entrance<CanonicalRequest>;
  /** How a hit goes out, refilled per request (used synchronously: never shared across requests). */
  readonly #out: Outlet & { kind: 'raw' };
  #closing = false;
  /** The URL another entrance remembered a request under (passthrough: ignored parameters dropped); null: none. */
  #normalize: ((url: string) => string | null) | null = null;

  constructor(deps: FastHitDeps) {
    this.#d = deps;
    this.#max = deps.maxUrls ?? 10_000;
    this.#endpoints = hitsOnly((req, now) => deps.resolver.hit(req, now));
    this.#out = { kind: 'raw', req: undefined as never, res: undefined as never, name: '' };
  }

  /** How URLs of another entrance are looked up when not remembered as they are (set once, by passthrough). */
  normalizeWith(normalize: (url: string) => string | null): void {
    this.#normalize = normalize;
  }

  get size(): number {
    return this.#urls.size;
  }

  /** A validated URL that was just answered with a fresh hit. */
  remember(url: string, endpoint: EndpointDef, req: CanonicalRequest, page: PageHits | null = null): void {
    if (url.length > MAX_URL_LENGTH || this.#urls.has(url)) return;
    this.#forgetOldest();
    const entrance = page === null ? this.#endpoints : hitsOnly((r, now) => page.hit(r.key, now));
    const request = { url, parsed: req, hitOnly: true as const, timeoutMs: 0, clock: this.#d.clock, miss: NEVER };
    const exit = page === null ? exitOf(this.#d.epilogue.endpoints, endpoint.name) : page.exit;
    const { resolver, clock } = this.#d;
    const second =
      page !== null
        ? NO_SECOND
        : () => resolver.secondHit(req)?.then((r) => (r === undefined ? r : servedShared(req, r, clock()))) ?? null;
    this.#urls.set(url, { name: endpoint.name, exit, answer: () => serve(entrance, request), second });
  }

  /** A URL another entrance (passthrough) just answered with a fresh hit. */
  rememberHit(url: string, hit: OtherHit): void {
    if (url.length > MAX_URL_LENGTH || this.#urls.has(url)) return;
    this.#forgetOldest();
    this.#urls.set(url, { ...hit, second: NO_SECOND });
  }

  #forgetOldest(): void {
    if (this.#urls.size >= this.#max) {
      const oldest = this.#urls.keys().next();
      if (oldest.done !== true) this.#urls.delete(oldest.value);
    }
  }

  /** Forgets every remembered URL (a reload changed how some are answered): each is routed until remembered again. */
  forget(): void {
    this.#urls.clear();
  }

  /** From now on everything goes to Fastify (the drain decides what is still served). */
  close(): void {
    this.#closing = true;
    this.#urls.clear();
  }

  /**
   * True when the request was answered here, or will be: a shared-tier read is
   * under way, and `next` (Fastify) takes the request when that is not a fresh hit.
   */
  handle(req: IncomingMessage, res: ServerResponse, next: Handler): boolean {
    const url = req.url;
    if (url === undefined || this.#closing) return false;
    const known = this.#urls.get(url) ?? this.#normalized(url);
    if (known === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    if (known.admits !== undefined && !known.admits(req)) return false;
    const started = performance.now();
    const answer = known.answer();
    if (answer !== null && answer.res !== null) {
      this.#write(known, req, res, answer, started);
      return true;
    }
    const shared = known.second();
    if (shared === null) return false;
    shared
      .then((a) => {
        if (a === undefined || this.#closing) next(req, res);
        else this.#write(known, req, res, a, started);
      })
      .catch(() => {
        // Nothing sent yet: the router answers (and reports) it; else the answer is cut.
        if (!res.headersSent) next(req, res);
        else res.destroy();
      });
    return true;
  }

  #normalized(url: string): Known | undefined {
    const n = this.#normalize?.(url) ?? null;
    return n === null || n === url ? undefined : this.#urls.get(n);
  }

  /** A hit leaves through the epilogue (rate limit, header block, bytes, count). */
  #write(known: Known, req: IncomingMessage, res: ServerResponse, answer: Answer<unknown>, started: number) {
    const out = this.#out;
    out.req = req;
    out.res = res;
    out.name = known.name;
    this.#d.epilogue.finish(known.exit, answer, started, out);
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * Fastify `serverFactory`: the HTTP/1 server Fastify would make itself (same
 * timeouts), with the fast path, when there is one, in front of its handler,
 * and each request the router takes in its SERVER span when tracing is on (tracing.ts).
 */
export function fastServerFactory(fast: FastHits | null): (handler: Handler, opts: Record<string, unknown>) => Server {
  return (handler, opts) => {
    // Fastify's `http` options (headersTimeout, connectionsCheckingInterval) are construction-time only.
    const http = (typeof opts['http'] === 'object' && opts['http'] !== null ? opts['http'] : {}) as ServerOptions;
    // Tracing: the router's requests run in their SERVER span; fast hits get theirs from the epilogue.
    const routed = tracing()?.entrance(handler) ?? handler;
    const server = createServer(
      http,
      fast === null
        ? routed
        : (req, res) => {
            if (!fast.handle(req, res, routed)) routed(req, res);
          },
    );
    const keepAlive = num(opts['keepAliveTimeout']);
    const requestTimeout = num(opts['requestTimeout']);
    const connectionTimeout = num(opts['connectionTimeout']);
    const perSocket = num(opts['maxRequestsPerSocket']);
    if (keepAlive !== undefined) server.keepAliveTimeout = keepAlive;
    if (requestTimeout !== undefined) server.requestTimeout = requestTimeout;
    if (connectionTimeout !== undefined) server.setTimeout(connectionTimeout);
    if (perSocket !== undefined && perSocket > 0) server.maxRequestsPerSocket = perSocket;
    return server;
  };
}
