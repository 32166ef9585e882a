/**
 * One attempt: GET base+path on one upstream's undici dispatcher, read the
 * whole body (bounded), refuse anything that is not a complete JSON object,
 * and apply the request's `accept` hook. This is the one place where foreign
 * errors (undici, JSON.parse, abort reasons) become ProxyErrors.
 *
 * Classification:
 * - status >= 500, 401, 403, 408, 429 → UPSTREAM_ERROR (retryable, counts against the upstream)
 * - 1xx/3xx, invalid UTF-8, non-JSON,
 *   non-object                        → UPSTREAM_BAD_RESPONSE (retryable)
 * - body over maxBodyBytes, body shorter/longer than content-length,
 *   premature close                  → UPSTREAM_BAD_RESPONSE (retryable)
 * - per-attempt timeout              → UPSTREAM_TIMEOUT (retryable)
 * - `accept` hook returns a reason   → UPSTREAM_LAGGING (or `acceptKind`; retryable)
 * - 2xx/4xx with a JSON object       → an UpstreamResponse (4xx is an answer, e.g. not found)
 * When the caller's signal aborts (hedge loser, deadline, client gone), the
 * attempt rejects with `toProxyError(signal.reason)`.
 */
import { isUtf8 } from 'node:buffer';
import type { Dispatcher } from 'undici';
import { ProxyError, toProxyError, type ErrorKind } from '../errors/catalog.js';
import { tracing } from '../tracing/tracing.js';
import type { UpstreamRequest, UpstreamResponse } from './types.js';

export interface AttemptOptions {
  /** Name of the upstream (reported in the response). */
  upstream: string;
  /** Path prefix of the upstream's base URL ('' or e.g. '/api'). */
  basePath: string;
  /** Path and query relative to the base URL. */
  path: string;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxBodyBytes: number;
  /** 1-based number of this attempt within the client request. */
  attempt: number;
  accept?: UpstreamRequest['accept'];
  /** Kind of the error when `accept` rejects (requests: UPSTREAM_LAGGING; probes: UPSTREAM_BAD_RESPONSE). */
  acceptKind?: ErrorKind;
  signal?: AbortSignal | undefined;
}

function declaredLength(headers: Dispatcher.ResponseData['headers']): number | null {
  const raw = headers['content-length'];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return null;
  return Number(raw);
}

/** Drops a body we will not read (the connection is closed rather than drained). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

async function readBody(res: Dispatcher.ResponseData, max: number): Promise<Buffer> {
  const declared = declaredLength(res.headers);
  if (declared !== null && declared > max) {
    discard(res.body);
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: `content-length ${declared} exceeds ${max}` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > max) {
      discard(res.body);
      throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: `body exceeds ${max} bytes` });
    }
    chunks.push(buf);
  }
  if (declared !== null && size !== declared) {
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, {
      detail: `truncated body: ${size} of ${declared} bytes`,
    });
  }
  return Buffer.concat(chunks, size);
}

function parseObject(body: Buffer): Record<string, unknown> {
  // toString('utf8') would silently turn invalid bytes into U+FFFD.
  if (!isUtf8(body)) throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: 'body is not valid UTF-8' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { cause: err, detail: 'body is not JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: 'body is not a JSON object' });
  }
  return parsed as Record<string, unknown>;
}

function checkStatus(status: number): void {
  if (status >= 500 || status === 401 || status === 403 || status === 408 || status === 429) {
    throw new ProxyError('UPSTREAM_ERROR', undefined, { detail: `HTTP ${status}` });
  }
  if (status < 200 || (status >= 300 && status < 400)) {
    throw new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: `unexpected HTTP ${status}` });
  }
}

/** One attempt, in a CLIENT span carrying `traceparent` to the upstream when tracing is on (tracing.ts). */
export function attempt(dispatcher: Dispatcher, o: AttemptOptions): Promise<UpstreamResponse> {
  const t = tracing();
  if (t === null) return attemptOnce(dispatcher, o);
  return t.client({ upstream: o.upstream, path: o.path }, o.headers, (headers) =>
    attemptOnce(dispatcher, { ...o, headers }),
  );
}

async function attemptOnce(dispatcher: Dispatcher, o: AttemptOptions): Promise<UpstreamResponse> {
  const started = performance.now();
  const timer = new AbortController();
  const timeout = setTimeout(() => {
    timer.abort(new ProxyError('UPSTREAM_TIMEOUT', undefined, { detail: `attempt exceeded ${o.timeoutMs} ms` }));
  }, o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timer.signal]) : timer.signal;
  /** Status of the answer once its headers arrived: errors past that point are about it. */
  let answered: number | null = null;
  try {
    const res = await dispatcher.request({
      path: o.basePath + o.path,
      method: 'GET',
      headers: { ...o.headers },
      signal,
    });
    answered = res.statusCode;
    const body = await readBody(res, o.maxBodyBytes);
    checkStatus(res.statusCode);
    const response: UpstreamResponse = {
      status: res.statusCode,
      body,
      json: parseObject(body),
      upstream: o.upstream,
      durationMs: performance.now() - started,
      attempts: o.attempt,
    };
    const rejected = o.accept ? o.accept(response) : null;
    if (rejected instanceof ProxyError) throw rejected;
    if (rejected !== null) throw new ProxyError(o.acceptKind ?? 'UPSTREAM_LAGGING', undefined, { detail: rejected });
    return response;
  } catch (err) {
    if (o.signal?.aborted) throw toProxyError(o.signal.reason);
    if (timer.signal.aborted) throw toProxyError(timer.signal.reason);
    const e = toProxyError(err);
    throw answered === null || e.upstreamStatus !== null ? e : e.withUpstreamStatus(answered);
  } finally {
    clearTimeout(timeout);
  }
}
