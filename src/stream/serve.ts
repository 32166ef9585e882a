/**
 * Opening a stream on a channel, for any stream route: the resume point is
 * checked, the caps applied and the plan made before the response is
 * hijacked; after it, only the headers and the hub's `open` (which counts the
 * stream at once), nothing that can throw.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChainView } from '../chain/types.js';
import { clientIdentity } from '../common/client-identity.js';
import { EDGE_ERRORS, envelopeBody, ProxyError } from '../errors/catalog.js';
import { sendEnvelope } from '../http/envelope-writer.js';
import { CORS_HEADERS } from '../http/deliver.js';
import type { StreamChannel } from './channel.js';
import type { StreamHub } from './hub.js';
import type { StreamMetrics } from './metrics.js';
import { planResume, resumePoint } from './resume.js';

export interface ServeDeps {
  hub: StreamHub;
  channel: StreamChannel;
  chain: ChainView;
  retryMs: number;
  metrics: StreamMetrics;
  clock: () => number;
  /** Written right after the headers (retry hint, opening comment). */
  opening: Buffer;
  /** Called for every stream opened. */
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

function refuse(reply: FastifyReply, status: number, code: number, msg: string, extra: readonly string[] = []): FastifyReply {
  return sendEnvelope(reply, status, envelopeBody(code, msg), { extra });
}

export function serveStream(request: FastifyRequest, reply: FastifyReply, d: ServeDeps): FastifyReply {
  const after = resumePoint(request.headers['last-event-id'], request.raw.url ?? '');
  if (after instanceof ProxyError) return refuse(reply, after.status, after.code, after.message);
  // The address Fastify resolves (X-Forwarded-For only from TRUST_PROXY hops), as one client identity.
  const client = clientIdentity(request.ip);
  const admission = d.hub.admit(client);
  if (admission !== 'ok') {
    d.metrics.refused(admission === 'full' ? 'max_streams' : 'per_client');
    const err = admission === 'full' ? EDGE_ERRORS.STREAMS_FULL : EDGE_ERRORS.STREAM_CLIENT_LIMIT;
    const extra = admission === 'full' ? ['retry-after', String(Math.max(1, Math.ceil(d.retryMs / 1000)))] : [];
    return refuse(reply, err.status, err.code, err.msg, extra);
  }
  const plan = planResume(after, { history: d.channel.history, head: d.chain.bestHead(), final: d.chain.finalHeight(), time: d.clock() });
  const socket = request.raw.socket;
  socket.setNoDelay(true);
  socket.setKeepAlive(true);
  reply.hijack();
  reply.raw.writeHead(200, STREAM_HEADERS);
  d.hub.open(reply.raw, client, d.channel, plan, d.opening);
  d.onSubscribe();
  return reply;
}
