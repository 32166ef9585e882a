/**
 * The one request lifecycle: parse → synchronous hit → resolve (with the
 * request timeout) → Answer, for every entrance (an API endpoint, a composed
 * page, a batch item, and the pre-router fast path, which starts from a
 * request parsed before). The route files are adapters around it: they take
 * the request off the wire, call serve and hand the Answer to the epilogue
 * (epilogue.ts), which charges, writes, counts and logs it.
 *
 * The Answer says what is sent (status, X-Cache, the resolution or the error
 * envelope, the instant it was served); its header list and bytes are shaped
 * by answer.ts from the one header builder, when the epilogue writes it.
 *
 * The outcome → status and X-Cache mapping lives here and nowhere else: a
 * resolution says its own cache result, an entrance's failure and a request
 * that fails validation or resolution are `ERROR` with their envelope, and an
 * envelope the proxy writes itself is `ERROR` from 400 up, else `BYPASS`.
 * A hit is answered synchronously (no promise).
 */
import type { PartSummary } from '../cache/types.js';
import { type ProxyError, toProxyError } from '../errors/catalog.js';
import type { Resolution } from '../pipeline/resolver.js';
import type { MissPayer } from '../ratelimit/payer.js';
import { rawQuery, withTimeout } from './request-util.js';

/** X-Cache of an answer. */
export type CacheOutcome = Resolution['result'] | 'ERROR';

/** An answer an entrance could not make (a page's required part failed): its envelope. */
export interface Failure {
  status: number;
  body: Buffer;
  message: string;
}

/** What an entrance resolved: a resolution (with a page's parts), or a failure. */
export type Outcome = { res: Resolution; parts: readonly PartSummary[] | null } | { failure: Failure };

/** What a miss may use: the client's disconnect and who pays its upstream requests. */
export interface MissContext {
  gone: AbortSignal | undefined;
  payer: MissPayer | null;
  /** The client takes gzip or brotli: a MISS it is sent waits for the compressed variants (absent: it does not). */
  compressed?: boolean;
}

/** One way in: how its requests are parsed, looked up and resolved. */
export interface Entrance<R> {
  /** Validates a raw query: throws the 400 ProxyError naming the parameter. */
  parse(query: string): R;
  /** The synchronous hit, or undefined. */
  hit(req: R, now: number): Resolution | undefined;
  /** Everything else (rejects with a ProxyError). */
  resolve(req: R, miss: MissContext): Promise<Outcome>;
  /** Parts of a hit (composed pages), else null. */
  partsOf(res: Resolution): readonly PartSummary[] | null;
}

/** A request as serve sees it. */
export interface ServeRequest<R> {
  /** The raw URL (its query is parsed), unless `parsed` is given. */
  url: string;
  /** A request parsed before from exactly this URL (the fast path). */
  parsed?: R;
  /** Only a synchronous hit is answered (the fast path): anything else is null. */
  hitOnly?: true;
  /** Made only for a miss. */
  miss: () => MissContext;
  timeoutMs: number;
  clock: () => number;
}

interface AnswerBase<R> {
  /** Status (a resolution's; 304 is decided when shaped, from If-None-Match). */
  status: number;
  cache: CacheOutcome;
  /** The parsed request (null when validation failed). */
  req: R | null;
  /** The instant it was served (stamps, Age, max-age). */
  now: number;
  parts: readonly PartSummary[] | null;
  /** The answer came from the synchronous hit. */
  synchronous: boolean;
}

/** What is sent: a resolution, or an error envelope (with the ProxyError behind it, when there was one). */
export type Answer<R> = AnswerBase<R> &
  ({ res: Resolution; failure: null; error: null } | { res: null; failure: Failure; error: ProxyError | null });

/** X-Cache of an envelope the proxy writes itself. */
export function envelopeVerdict(status: number): 'ERROR' | 'BYPASS' {
  return status >= 400 ? 'ERROR' : 'BYPASS';
}

/** An answer with no resolution: its error envelope. */
type Failed<R> = Answer<R> & { res: null; failure: Failure };

function failed<R>(req: R | null, failure: Failure, error: ProxyError | null, now: number): Failed<R> {
  return {
    status: failure.status,
    cache: 'ERROR',
    req,
    res: null,
    now,
    failure,
    error,
    parts: null,
    synchronous: false,
  };
}

function errored<R>(req: R | null, e: unknown, now: number): Failed<R> {
  const err = toProxyError(e);
  return failed(req, { status: err.status, body: err.toBody(), message: err.message }, err, now);
}

/** An envelope an adapter made whole (the batch answer): `X-Cache` by the envelope rule. */
export function enveloped(status: number, body: Buffer): Answer<never> {
  return { ...failed<never>(null, { status, body, message: '' }, null, 0), cache: envelopeVerdict(status) };
}

/** An answer an entrance relayed itself (a stream from a backend, never stored): `BYPASS`. */
export function relayed(status: number): Answer<never> {
  return { ...failed<never>(null, { status, body: EMPTY, message: '' }, null, 0), cache: 'BYPASS' };
}

const EMPTY = Buffer.alloc(0);

/** The answer to a request refused before any entrance (a batch item that names no endpoint). */
export function refused(err: ProxyError): Failed<never> {
  return errored<never>(null, err, 0);
}

function served<R>(
  req: R,
  res: Resolution,
  parts: readonly PartSummary[] | null,
  now: number,
  synchronous: boolean,
): Answer<R> {
  return { status: res.entry.status, cache: res.result, req, res, now, failure: null, error: null, parts, synchronous };
}

/** The answer of a resolution an entrance made itself (a passthrough backend's 5xx, relayed): its own result. */
export function servedResolution<R>(req: R, res: Resolution, now: number): Answer<R> {
  return served(req, res, null, now, false);
}

/** The answer of a shared-tier hit the pre-router path read itself (Resolver.secondHit). */
export function servedShared<R>(req: R, res: Resolution, now: number): Answer<R> {
  return served(req, res, null, now, false);
}

/** Serves one request through `entrance`: synchronously for a hit or a bad request, else a promise. */
export function serve<R>(entrance: Entrance<R>, request: ServeRequest<R> & { hitOnly: true }): Answer<R> | null;
export function serve<R>(entrance: Entrance<R>, request: ServeRequest<R>): Answer<R> | Promise<Answer<R>>;
export function serve<R>(entrance: Entrance<R>, request: ServeRequest<R>): Answer<R> | Promise<Answer<R>> | null {
  let req: R;
  if (request.parsed !== undefined) req = request.parsed;
  else {
    try {
      req = entrance.parse(rawQuery(request.url));
    } catch (e) {
      return errored(null, e, 0);
    }
  }
  const now = request.clock();
  const hit = entrance.hit(req, now);
  if (hit !== undefined) return served(req, hit, entrance.partsOf(hit), now, true);
  if (request.hitOnly === true) return null;
  return withTimeout(entrance.resolve(req, request.miss()), request.timeoutMs).then(
    (o) =>
      'failure' in o
        ? failed(req, o.failure, null, request.clock())
        : served(req, o.res, o.parts, request.clock(), false),
    (e: unknown) => errored(req, e, request.clock()),
  );
}
