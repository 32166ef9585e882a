/**
 * The one error catalogue: every error the proxy makes or relays leaves through
 * here as a well-formed `{code, msg, data: null}` envelope with a stable code and
 * HTTP status. Foreign errors (undici, ioredis, JSON.parse) are translated at one
 * boundary, `toProxyError`, so no other module maps exceptions to statuses.
 */

export const ERRORS = {
  BAD_REQUEST: { code: 4000, status: 400, msg: 'bad request' },
  BAD_PARAMETER: { code: 4001, status: 400, msg: 'invalid parameter' },
  MISSING_PARAMETER: { code: 4002, status: 400, msg: 'missing parameter' },
  DUPLICATE_PARAMETER: { code: 4003, status: 400, msg: 'duplicated parameter' },
  ROUTE_NOT_FOUND: { code: 4040, status: 404, msg: 'no such endpoint' },
  METHOD_NOT_ALLOWED: { code: 4050, status: 405, msg: 'method not allowed; use GET or HEAD' },
  RATE_LIMITED: { code: 4290, status: 429, msg: 'rate limit exceeded' },
  INTERNAL: { code: 5000, status: 500, msg: 'internal error' },
  UPSTREAM_BAD_RESPONSE: { code: 5021, status: 502, msg: 'upstream sent an invalid response' },
  UPSTREAM_UNAVAILABLE: { code: 5022, status: 502, msg: 'no upstream available' },
  UPSTREAM_ERROR: { code: 5023, status: 502, msg: 'upstream error' },
  UPSTREAM_LAGGING: { code: 5024, status: 502, msg: 'upstream is behind the chain head' },
  SHUTTING_DOWN: { code: 5030, status: 503, msg: 'server is shutting down' },
  UPSTREAM_OVERLOADED: { code: 5031, status: 503, msg: 'upstream busy; retry later' },
  UPSTREAM_TIMEOUT: { code: 5040, status: 504, msg: 'upstream timed out' },
  REQUEST_TIMEOUT: { code: 5041, status: 504, msg: 'request timed out' },
} as const satisfies Record<string, { code: number; status: number; msg: string }>;

export type ErrorKind = keyof typeof ERRORS;

/**
 * Refusals made at the HTTP edge (parser, rate limiter, stream caps,
 * readiness) and the proxy's own failures (a purge the fleet did not hear),
 * never relayed from an upstream, so outside ErrorKind (which every upstream
 * outcome must map). Same envelope, same code space.
 */
export const EDGE_ERRORS = {
  MALFORMED_REQUEST: ERRORS.BAD_REQUEST,
  UNKNOWN_API_KEY: { code: 4010, status: 401, msg: 'unknown API key' },
  CLIENT_TIMEOUT: { code: 4080, status: 408, msg: 'request not received in time' },
  STREAM_CLIENT_LIMIT: { code: 4291, status: 429, msg: 'too many open streams from this client' },
  MISS_BUDGET_SPENT: {
    code: 4292,
    status: 429,
    msg: 'miss budget spent: only cached answers are served until it refills',
  },
  HEADERS_TOO_LARGE: { code: 4310, status: 431, msg: 'request headers too large' },
  STREAMS_FULL: { code: 5032, status: 503, msg: 'too many open streams; retry later' },
  NOT_READY: { code: 5033, status: 503, msg: 'not ready: no healthy, up-to-date upstream' },
  PURGE_NOT_PROPAGATED: { code: 5034, status: 503, msg: 'purge applied on this replica, not across the fleet' },
} as const satisfies Record<string, { code: number; status: number; msg: string }>;

export type EdgeErrorKind = keyof typeof EDGE_ERRORS;

/** Every 503 envelope the proxy writes (queue full, shutting down) says when to come back. */
export const RETRY_AFTER_503_SECONDS = '1';

/** Kinds after which an idempotent GET may be tried on another upstream. */
const RETRYABLE: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'UPSTREAM_BAD_RESPONSE',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'UPSTREAM_LAGGING',
  'UPSTREAM_TIMEOUT',
]);

export class ProxyError extends Error {
  readonly kind: ErrorKind;
  readonly code: number;
  readonly status: number;
  /** Extra detail for logs only; never sent to clients. */
  readonly detail: string | undefined;
  /** HTTP status of the upstream answer this error is about; null when none arrived (or not an upstream's). */
  readonly upstreamStatus: number | null;

  constructor(
    kind: ErrorKind,
    message?: string,
    options?: { cause?: unknown; detail?: string; upstreamStatus?: number },
  ) {
    const def = ERRORS[kind];
    super(message ?? def.msg, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProxyError';
    this.kind = kind;
    this.code = def.code;
    this.status = def.status;
    this.detail = options?.detail;
    this.upstreamStatus = options?.upstreamStatus ?? null;
  }

  /** The same error, about an upstream answer of HTTP `status`. */
  withUpstreamStatus(status: number): ProxyError {
    const options = {
      detail: this.detail,
      upstreamStatus: status,
      ...(this.cause === undefined ? {} : { cause: this.cause }),
    };
    return new ProxyError(this.kind, this.message, options);
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }

  /** The JSON body sent to clients. */
  toBody(): Buffer {
    return envelopeBody(this.code, this.message);
  }
}

export function envelopeBody(code: number, msg: string, data: unknown = null): Buffer {
  return Buffer.from(JSON.stringify({ code, msg, data }));
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const BAD_RESPONSE_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'ECONNRESET',
  'EPIPE',
  'HPE_INVALID_CONSTANT',
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
]);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
/** Certificate verdicts of Node's TLS client (not ERR_-prefixed). */
const CERT_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A TLS failure in words (the upstream could not be reached over TLS), or null when `code` is not one. */
function tlsFailure(code: string): string | null {
  if (CERT_CODES.has(code)) return `TLS certificate rejected (${code})`;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG')
    return 'TLS handshake failed: the server did not answer in TLS';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO')
    return `TLS handshake failed (${code})`;
  return null;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The boundary: any thrown value becomes a ProxyError. */
export function toProxyError(err: unknown): ProxyError {
  if (err instanceof ProxyError) return err;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new ProxyError('UPSTREAM_TIMEOUT', undefined, { cause: err, detail });
  }
  const code = errorCode(err) ?? errorCode(err instanceof Error ? err.cause : undefined);
  if (code !== undefined) {
    if (TIMEOUT_CODES.has(code)) return new ProxyError('UPSTREAM_TIMEOUT', undefined, { cause: err, detail });
    if (BAD_RESPONSE_CODES.has(code)) return new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { cause: err, detail });
    if (UNAVAILABLE_CODES.has(code)) return new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { cause: err, detail });
    const tls = tlsFailure(code);
    if (tls !== null) return new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { cause: err, detail: tls });
  }
  if (err instanceof SyntaxError) return new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { cause: err, detail });
  return new ProxyError('INTERNAL', undefined, { cause: err, detail });
}
