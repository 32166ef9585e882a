/**
 * GET /stream/heads: a `text/event-stream` of head events on the head
 * channel. The response is hijacked from Fastify and handed to the hub
 * (serve.ts); the request itself is cheap (caps, headers, the replay plan).
 */
import type { FastifyInstance } from 'fastify';
import { OPEN_FRAME, retryFrame } from './frames.js';
import { serveStream, type ServeDeps } from './serve.js';

export const STREAM_PATH = '/stream/heads';

export function registerStreamRoute(app: FastifyInstance, deps: Omit<ServeDeps, 'opening'>): void {
  const d: ServeDeps = { ...deps, opening: Buffer.concat([retryFrame(deps.retryMs), OPEN_FRAME]) };
  // No HEAD route: a HEAD request must not hold a stream open (it gets the 405 envelope).
  app.get(STREAM_PATH, { exposeHeadRoute: false }, (request, reply) => serveStream(request, reply, d));
}
