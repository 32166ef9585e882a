/**
 * GET /stream/heads: a `text/event-stream` of head events on the head
 * channel. The response is hijacked from Fastify and handed to the hub
 * (serve.ts); the request itself is cheap (caps, headers, the replay plan).
 */
import type { FastifyInstance } from 'fastify';
import type { ChainView } from '../chain/types.js';
import type { StreamChannel } from './channel.js';
import { OPEN_FRAME, retryFrame } from './frames.js';
import type { EventHistory } from './history.js';
import { planResume } from './resume.js';
import { serveStream, type ServeDeps } from './serve.js';
import { merged, reaches, type SharedHeadHistory } from './shared-history.js';

export const STREAM_PATH = '/stream/heads';

export interface HeadRouteDeps extends Omit<ServeDeps, 'opening' | 'target'> {
  channel: StreamChannel;
  chain: ChainView;
  clock: () => number;
  /** The fleet's shared history (with Redis), read for a resume point this replica's history does not reach. */
  shared: SharedHeadHistory | null;
}

export function registerStreamRoute(app: FastifyInstance, deps: HeadRouteDeps): void {
  const { channel, chain, clock, shared } = deps;
  const d: ServeDeps = {
    hub: deps.hub,
    retryMs: deps.retryMs,
    metrics: deps.metrics,
    onSubscribe: deps.onSubscribe,
    target: (_request, after) => {
      const local = channel.history;
      const plan = (history: EventHistory) => ({
        member: channel,
        plan: planResume(after, { history, head: chain.bestHead(), final: chain.finalHeight(), time: clock() }),
      });
      if (shared === null || after === null || reaches(local, after)) return plan(local);
      return shared.read(after, chain.bestHead()).then((h) => plan(h === null ? local : merged(h, local)));
    },
    opening: Buffer.concat([retryFrame(deps.retryMs), OPEN_FRAME]),
  };
  // No HEAD route: a HEAD request must not hold a stream open (it gets the 405 envelope).
  app.get(STREAM_PATH, { exposeHeadRoute: false }, (request, reply) => serveStream(request, reply, d));
}
