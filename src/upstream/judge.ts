/**
 * The one definition of a good answer, used by the upstream layer (the
 * request's `accept` hook rejects anything else, so it is retried elsewhere
 * and counted against the upstream), the classifier (only good answers are
 * successes) and so the store (only what the classifier calls cacheable).
 *
 * - good:     HTTP 2xx, `code` 0, `msg` a string, and `data` of the endpoint's
 *             record schema (src/schema, compiled once per endpoint).
 * - negative: a not-found / client-error answer: HTTP 4xx (other than 401,
 *             403, 408, 429, which attempt.ts already made upstream errors), or
 *             2xx with a non-zero integer `code`.
 * - bad:      anything else (`code` 0 without `msg`, `data: null`, `{}`, wrong
 *             types, a 2xx without an envelope, duplicated `code`/`msg`/`data`
 *             at the top level or `next`/`previous` inside `data`).
 *
 * Duplicate keys are rejected rather than resolved: JSON.parse keeps the last
 * one while the link splicer and other clients may read the first, so no
 * choice would make every reader agree.
 */
import type { EndpointName } from '../catalogue/types.js';
import { compileSpec, dataSpecOf, type Conforms } from '../schema/index.js';
import { forEachMember, keyIs, root } from '../transform/json-scan.js';
import { isNegative, isSuccessEnvelope } from '../transform/envelope.js';

export type AnswerVerdict = 'good' | 'negative' | 'bad';

const conformers = new Map<string, Conforms>();

function conformsFor(endpoint: EndpointName): Conforms | null {
  let c = conformers.get(endpoint);
  if (c === undefined) {
    const spec = dataSpecOf(endpoint);
    if (spec === undefined) return null;
    c = compileSpec(spec);
    conformers.set(endpoint, c);
  }
  return c;
}

const ENVELOPE_KEYS = ['code', 'msg', 'data'] as const;
const LINK_KEYS = ['next', 'previous'] as const;

function countKeys(body: Buffer, at: number, names: readonly string[], onData?: (start: number) => void): boolean {
  const seen = new Set<string>();
  let dup = false;
  forEachMember(body, at, (ks, ke, value) => {
    for (const n of names) {
      if (!keyIs(body, ks, ke, n)) continue;
      if (seen.has(n)) dup = true;
      seen.add(n);
      if (n === 'data' && onData && body[value.start] === 0x7b) onData(value.start);
    }
    return dup;
  });
  return dup;
}

/** Quoted key names that matter, and `\u` escapes (which could spell them). */
const WATCHED = /"(code|msg|data|next|previous)"|\\u/g;

/**
 * Fast filter (one regex pass over the bytes): a key can only be duplicated when
 * its quoted name occurs twice, or when escapes (`"\u0063ode"`) could spell it.
 */
function mayRepeatKeys(body: Buffer): boolean {
  const seen = new Set<string>();
  const text = body.toString('latin1');
  WATCHED.lastIndex = 0;
  for (let m = WATCHED.exec(text); m !== null; m = WATCHED.exec(text)) {
    const k = m[1];
    if (k === undefined || seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

/** Whether the body repeats a key whose first and last values readers could disagree on. */
export function hasDuplicateEnvelopeKeys(body: Buffer): boolean {
  if (!mayRepeatKeys(body)) return false;
  const top = root(body);
  if (top === null || body[top.start] !== 0x7b) return false;
  let linksDup = false;
  const dup = countKeys(body, top.start, ENVELOPE_KEYS, (start) => {
    if (countKeys(body, start, LINK_KEYS)) linksDup = true;
  });
  return dup || linksDup;
}

/** Why a 2xx answer with `code` 0 is not good, or null when it is good. */
function successProblem(endpoint: EndpointName, json: Record<string, unknown>, body: Buffer | null): string | null {
  if (!isSuccessEnvelope(200, json))
    return typeof json['msg'] !== 'string' ? 'success envelope without a string msg' : 'success envelope without data';
  const conforms = conformsFor(endpoint);
  if (conforms !== null && !conforms(json['data'])) return `data does not match the ${endpoint} record schema`;
  if (body !== null && hasDuplicateEnvelopeKeys(body)) return 'duplicated envelope or link keys';
  return null;
}

/** The verdict on one parsed answer (`body` null skips the duplicate-key scan, e.g. for stored entries). */
export function judge(
  endpoint: EndpointName,
  status: number,
  json: Record<string, unknown>,
  body: Buffer | null,
): AnswerVerdict {
  if (isNegative(status, json)) return body !== null && hasDuplicateEnvelopeKeys(body) ? 'bad' : 'negative';
  if (status < 200 || status >= 300 || json['code'] !== 0) return 'bad';
  return successProblem(endpoint, json, body) === null ? 'good' : 'bad';
}

/** Why an answer is bad, or null when it is good or negative: the `accept` hook of API requests. */
export function answerProblem(
  endpoint: EndpointName,
  status: number,
  json: Record<string, unknown>,
  body: Buffer,
): string | null {
  if (isNegative(status, json)) return hasDuplicateEnvelopeKeys(body) ? 'duplicated envelope keys' : null;
  if (status < 200 || status >= 300) return `unexpected HTTP ${status}`;
  if (json['code'] !== 0) return 'answer without an envelope code';
  return successProblem(endpoint, json, body);
}
