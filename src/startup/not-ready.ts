/**
 * The answer of the bound port before the server is ready (src/startup/bind.ts):
 * the 503 envelope of /readyz (code 5033) saying the proxy is starting, with
 * Retry-After, through the envelope writer every answer uses, and the
 * connection closed (the next one reaches the ready server).
 */
import { EDGE_ERRORS, envelopeBody } from '../errors/catalog.js';
import { EnvelopeWriter } from '../http/envelope-writer.js';
import type { EarlyAnswer } from './bind.js';

const STARTING_MSG = 'not ready: starting up';

export function notReadyAnswer(o: { upstreamIsSimulator: boolean; headersTimeoutMs: number }): EarlyAnswer {
  const writer = new EnvelopeWriter({ upstreamIsSimulator: o.upstreamIsSimulator });
  const e = EDGE_ERRORS.NOT_READY;
  const body = envelopeBody(e.code, STARTING_MSG);
  return {
    request: (_req, res) => writer.write(res, e.status, body, { extra: ['connection', 'close'] }),
    raw: writer.rawResponse(e.status, body),
    headersTimeoutMs: o.headersTimeoutMs,
  };
}
