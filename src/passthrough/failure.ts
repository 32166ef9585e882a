/** A passthrough backend failure as a catalogue error and a bounded metrics reason. */
import { ProxyError, toProxyError } from '../errors/catalog.js';
import type { PassthroughFailure } from './metrics.js';

interface ReplyFromError {
  statusCode?: number;
  cause?: unknown;
}

/**
 * @fastify/reply-from wraps the network error (its own error class in front,
 * the undici or socket error as `cause`): the cause decides, the wrapper's
 * status breaks ties.
 */
export function passthroughError(error: unknown): { err: ProxyError; reason: PassthroughFailure } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ReplyFromError;
  let err = toProxyError(e.cause ?? error);
  if (err.kind === 'INTERNAL') {
    if (e.statusCode === 504) err = new ProxyError('UPSTREAM_TIMEOUT');
    else if (e.statusCode === 503) err = new ProxyError('UPSTREAM_UNAVAILABLE');
    else err = new ProxyError('UPSTREAM_ERROR');
  }
  const reason: PassthroughFailure =
    err.kind === 'UPSTREAM_TIMEOUT' ? 'timeout' : err.kind === 'UPSTREAM_UNAVAILABLE' ? 'unavailable' : 'bad_response';
  return { err, reason };
}
