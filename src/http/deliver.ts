/**
 * Writing an Answer (serve.ts): a resolution straight to the socket, a single
 * writeHead with the flat header list shaped by answer.ts and the precomputed
 * bytes; a failure as its envelope through the one envelope writer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Resolution } from '../pipeline/resolver.js';
import { shapeResolution, type Wire } from './answer.js';
import { sendEnvelope } from './envelope-writer.js';
import type { Answer } from './serve.js';

export { CORS_HEADERS } from './header-block.js';

/** A resolution served at `now`, written to `out`. Returns the status sent. */
export function writeResolution(out: ServerResponse, res: Resolution, now: number, wire: Wire): number {
  const shaped = shapeResolution(res, now, wire);
  out.writeHead(shaped.status, shaped.headers);
  out.end(shaped.body);
  return shaped.status;
}

/**
 * An answer through a Fastify reply: a resolution on the hijacked reply (headers
 * set before on it carried over), a failure as its envelope (`X-Cache: ERROR`,
 * counted by the caller, the epilogue). Returns the status sent.
 */
export function writeAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: Answer<unknown>,
  head: number | null,
  answerHeaders: readonly string[],
  id: string,
): number {
  if (answer.res === null) {
    sendEnvelope(reply, answer.status, answer.failure.body, { head, counted: true });
    return answer.status;
  }
  const earlier = reply.getHeaders();
  reply.hijack();
  return writeResolution(reply.raw, answer.res, answer.now, {
    reqHeaders: request.headers,
    earlier,
    answer: answerHeaders,
    head,
    id,
  });
}
