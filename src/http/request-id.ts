/**
 * The id of a request, sent back as `X-Request-Id` on every answer and logged
 * as `reqId`. A client's own id is kept when it is reasonable: 1 to 128
 * characters, each a letter, a digit or one of `- _ . : + = / @` (UUIDs,
 * W3C trace ids, base64 tokens). Anything else (empty, longer, other
 * characters, the header sent twice) is replaced by a generated id: a random
 * per-process prefix and a counter, unique across processes and replicas and
 * cheap enough for every fast-path hit (no random bytes per request).
 */
import { randomBytes } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

const REASONABLE = /^[A-Za-z0-9\-_.:+=/@]{1,128}$/;

/** The rule for a client's id, as a named predicate. */
export function isReasonableRequestId(given: string): boolean {
  return REASONABLE.test(given);
}

const PREFIX = `${randomBytes(4).toString('hex')}-`;
let counter = 0;

/** The id of a request that sent `given` as its X-Request-Id (undefined: none). */
export function requestIdOf(given: string | string[] | undefined): string {
  if (typeof given === 'string' && isReasonableRequestId(given)) return given;
  return PREFIX + (++counter).toString(36);
}
