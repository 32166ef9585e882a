/**
 * GET /stream/heads: a `text/event-stream` of head events. The response is
 * hijacked from Fastify and handed to the hub; the request itself is cheap
 * (caps, headers, the replay from history).
 */
import type { FastifyInstance } from 'fastify';
import { EDGE_ERRORS, envelopeBody } from '../errors/catalog.js';
import { CORS_HEADERS } from '../http/deliver.js';
import { sendEnvelope } from '../http/envelope-writer.js';
import { OPEN_FRAME, resumeHeight, retryFrame } from './frames.js';
import type { EventHistory } from './history.js';
import type { StreamHub } from './hub.js';
import type { StreamMetrics } from './metrics.js';

export const STREAM_PATH = '/stream/heads';

export interface StreamRouteDeps {
  hub: StreamHub;
  history: EventHistory;
  retryMs: number;
  metrics: StreamMetrics;
  /** Called for every stream opened (the feed starts making events at the first). */
  onSubscribe(): void;
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  // nginx and similar proxies must not buffer the stream.
  'x-accel-buffering': 'no',
  ...CORS_HEADERS,
};

export function registerStreamRoute(app: FastifyInstance, deps: StreamRouteDeps): void {
  const { hub, history, metrics } = deps;
  const opening = Buffer.concat([retryFrame(deps.retryMs), OPEN_FRAME]);

  // No HEAD route: a HEAD request must not hold a stream open (it gets the 405 envelope).
  app.get(STREAM_PATH, { exposeHeadRoute: false }, (request, reply) => {
    // The client address as Fastify resolves it (X-Forwarded-For only from TRUST_PROXY hops).
    const client = request.ip;
    const admission = hub.admit(client);
    if (admission !== 'ok') {
      metrics.refused(admission === 'full' ? 'max_streams' : 'per_client');
      const err = admission === 'full' ? EDGE_ERRORS.STREAMS_FULL : EDGE_ERRORS.STREAM_CLIENT_LIMIT;
      const extra = admission === 'full' ? ['retry-after', String(Math.max(1, Math.ceil(deps.retryMs / 1000)))] : [];
      return sendEnvelope(reply, err.status, envelopeBody(err.code, err.msg), { extra });
    }
    reply.hijack();
    const res = reply.raw;
    request.raw.socket.setNoDelay(true);
    request.raw.socket.setKeepAlive(true);
    res.writeHead(200, STREAM_HEADERS);
    res.write(opening);
    const after = resumeHeight(request.headers['last-event-id'], request.raw.url ?? '');
    const latest = history.latest();
    const replay = after === null ? (latest === undefined ? [] : [latest]) : history.after(after);
    let sent = 0;
    for (const e of replay) if (hub.write(res, e.frame)) sent++;
    if (sent > 0) metrics.sent(sent);
    hub.add(res, client, Math.max(after ?? -1, replay[replay.length - 1]?.height ?? -1));
    deps.onSubscribe();
    return reply;
  });
}
