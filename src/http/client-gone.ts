/**
 * A signal aborted when the client goes away before its answer was sent
 * (connection closed or reset): the pipeline may then cancel work nobody
 * waits for. Used on the miss path only (one listener per miss).
 */
import type { FastifyReply } from 'fastify';

export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
