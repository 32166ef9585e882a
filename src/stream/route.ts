/**
 * GET /stream/heads: a `text/event-stream` of head events on the head
 * channel. The response is hijacked from Fastify and handed to the hub
 * (serve.ts); the request itself is cheap (caps, headers, the replay plan).
 */
import type { FastifyInstance } from 'fastify';
import type { ChainView } from '../chain/types.js';
import type { StreamChannel } from './channel.js';
import { OPEN_FRAME, retryFrame } from './frames.js';
import { planResume } from './resume.js';
import { serveStream, type ServeDeps } from './serve.js';

export const STREAM_PATH = '/stream/heads';

export interface HeadRouteDeps extends Omit<ServeDeps, 'opening' | 'target'> {
  channel: StreamChannel;
  chain: ChainView;
  clock: () => number;
}

export function registerStreamRoute(app: FastifyInstance, deps: HeadRouteDeps): void {
  const { channel, chain, clock } = deps;
  const d: ServeDeps = {
    hub: deps.hub,
    retryMs: deps.retryMs,
    metrics: deps.metrics,
    onSubscribe: deps.onSubscribe,
    target: (_request, after) => ({
      member: channel,
      plan: planResume(after, {
        history: channel.history,
        head: chain.bestHead(),
        final: chain.finalHeight(),
        time: clock(),
      }),
    }),
    opening: Buffer.concat([retryFrame(deps.retryMs), OPEN_FRAME]),
  };
  // No HEAD route: a HEAD request must not hold a stream open (it gets the 405 envelope).
  app.get(STREAM_PATH, { exposeHeadRoute: false }, (request, reply) => serveStream(request, reply, d));
}
