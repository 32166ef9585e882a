/**
 * The upstream's envelope `{code, msg, data}`: what counts as a success, and how
 * an upstream error answer becomes a well-formed envelope for clients.
 */
import { ERRORS, envelopeBody } from '../errors/catalog.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MAX_MSG = 500;

/**
 * The envelope part of a good answer: 2xx, an object with `code === 0`, a
 * string `msg` and a `data` member. The whole definition (with the record
 * schema of `data`) is `judge` in src/upstream/judge.ts, applied to every API
 * answer at the upstream boundary; this part is what classify re-checks.
 */
export function isSuccessEnvelope(status: number, json: unknown): boolean {
  return (
    status >= 200 &&
    status < 300 &&
    isObject(json) &&
    json['code'] === 0 &&
    typeof json['msg'] === 'string' &&
    'data' in json
  );
}

function nonZeroInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v !== 0;
}

/** Negative answer: HTTP 4xx, or 2xx with a non-zero integer `code`. */
export function isNegative(status: number, json: Record<string, unknown>): boolean {
  if (status >= 400 && status < 500) return true;
  return status >= 200 && status < 300 && nonZeroInt(json['code']);
}

function text(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t.slice(0, MAX_MSG);
}

function deriveMsg(json: Json | null, status: number): string {
  if (json !== null) {
    for (const field of ['message', 'error', 'error_description', 'detail', 'err']) {
      const v = json[field];
      const s = text(v) ?? (isObject(v) ? text(v['message']) : null);
      if (s !== null) return s;
    }
  }
  return status >= 200 && status < 300 ? ERRORS.UPSTREAM_ERROR.msg : `${ERRORS.UPSTREAM_ERROR.msg} (HTTP ${status})`;
}

/**
 * An upstream error answer (non-2xx, or 2xx without a valid success envelope)
 * as a well-formed `{code, msg, data}`. The status is kept. An answer that is
 * already well-formed (non-zero integer code, string msg, a `data` member) is
 * returned byte for byte; otherwise the envelope is rebuilt with the upstream's
 * code when it is a non-zero integer (else the HTTP status, or 5023 for a 2xx),
 * its msg when it is a string (else `message`/`error`/... or a generic text)
 * and `data: null`.
 */
export function normalizeError(status: number, json: unknown, body: Buffer): { status: number; body: Buffer } {
  const obj = isObject(json) ? json : null;
  const upstreamCode = obj?.['code'];
  const upstreamMsg = obj?.['msg'];
  if (obj !== null && nonZeroInt(upstreamCode) && typeof upstreamMsg === 'string' && 'data' in obj) {
    return { status, body };
  }
  const is2xx = status >= 200 && status < 300;
  const code = nonZeroInt(upstreamCode) ? upstreamCode : is2xx ? ERRORS.UPSTREAM_ERROR.code : status;
  const msg = typeof upstreamMsg === 'string' ? upstreamMsg.slice(0, MAX_MSG) : deriveMsg(obj, status);
  return { status, body: envelopeBody(code, msg, null) };
}
