/**
 * Opening a stream on a channel, for any stream route: the resume point is
 * checked, the caps applied and the plan made before the response is
 * hijacked; after it, only the headers and the hub's `open` (which counts the
 * stream at once), nothing that can throw.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientIdentity } from '../common/client-identity.js';
import { EDGE_ERRORS, envelopeBody, ProxyError } from '../errors/catalog.js';
import { sendEnvelope } from '../http/envelope-writer.js';
import { CORS_HEADERS } from '../http/deliver.js';
import type { ChannelMember, StreamHub } from './hub.js';
import type { StreamMetrics } from './metrics.js';
import { resumePoint, type ResumePlan } from './resume.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';

/** The channel a request subscribes to and what it is sent first. */
interface StreamTarget {
  member: ChannelMember;
  plan: ResumePlan;
}

/** A target's answer when the replica has no room for what the stream would hold (503, like MAX_STREAMS). */
export const NO_ROOM = 'no-room';

export interface ServeDeps {
  hub: StreamHub;
  retryMs: number;
  metrics: StreamMetrics;
  /**
   * The request's channel and replay plan for its resume point (null: none),
   * a ProxyError (400) for parameters it cannot serve, or NO_ROOM. Pure:
   * nothing is registered until the stream opens.
   */
  target(request: FastifyRequest, after: number | null): StreamTarget | ProxyError | typeof NO_ROOM;
  /** Written right after the headers (retry hint, opening comment). */
  opening: Buffer;
  /** Called for every stream opened; null: nothing to do. */
  onSubscribe: (() => void) | null;
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  // nginx and similar proxies must not buffer the stream.
  'x-accel-buffering': 'no',
  'x-cache': 'BYPASS',
  ...CORS_HEADERS,
};

function refuse(
  reply: FastifyReply,
  status: number,
  code: number,
  msg: string,
  extra: readonly string[] = [],
): FastifyReply {
  return sendEnvelope(reply, status, envelopeBody(code, msg), { extra });
}

export function serveStream(request: FastifyRequest, reply: FastifyReply, d: ServeDeps): FastifyReply {
  const after = resumePoint(request.headers['last-event-id'], request.raw.url ?? '');
  if (after instanceof ProxyError) return refuse(reply, after.status, after.code, after.message);
  const target = d.target(request, after);
  if (target instanceof ProxyError) return refuse(reply, target.status, target.code, target.message);
  // The address Fastify resolves (X-Forwarded-For only from TRUST_PROXY hops), as one client identity.
  const client = clientIdentity(request.ip);
  const admission = d.hub.admit(client);
  if (admission !== 'ok' || target === NO_ROOM) {
    const client429 = admission === 'client';
    d.metrics.refused(client429 ? 'per_client' : admission === 'full' ? 'max_streams' : 'watch_budget');
    const err = client429 ? EDGE_ERRORS.STREAM_CLIENT_LIMIT : EDGE_ERRORS.STREAMS_FULL;
    return refuse(
      reply,
      err.status,
      err.code,
      err.msg,
      client429 ? [] : ['retry-after', String(Math.max(1, Math.ceil(d.retryMs / 1000)))],
    );
  }
  const socket = request.raw.socket;
  socket.setNoDelay(true);
  socket.setKeepAlive(true);
  reply.hijack();
  reply.raw.writeHead(200, { ...STREAM_HEADERS, [REQUEST_ID_HEADER]: request.id });
  d.hub.open(reply.raw, client, target.member, target.plan, d.opening);
  d.onSubscribe?.();
  return reply;
}
