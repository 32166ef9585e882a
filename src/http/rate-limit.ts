/**
 * The rate limiter at the HTTP edge (the counting is src/ratelimit/): a
 * synchronous onRequest hook for requests that go through Fastify, and its
 * one charge (`admit`), which the epilogue applies to the pre-router fast path.
 *
 * - Every request is charged one unit, hit or miss, valid or not (a client
 *   learns nothing about the cache from the limit), except those the path
 *   registry exempts (catalogue/paths.ts: /healthz, /readyz, and operator routes when
 *   an operator asks). A route registered with `config: { rateLimit:
 *   false }` is not charged by the hook (it charges itself, e.g. per item).
 * - Client IP is the one client address (client-address.ts: TRUST_PROXY decides
 *   which X-Forwarded-For hop is believed; `request.ip` agrees); `X-API-Key`
 *   makes the key the client instead.
 * - An API key pays credits instead: the request's price (CREDITS_HIT_COST,
 *   or its endpoint's or page's in creditCosts), and every answer to it
 *   carries `X-Credits-Remaining` (whole credits left after this request).
 * - Refusals: 429 RATE_LIMITED envelope with Retry-After (s) and X-RateLimit-*
 *   (limit, remaining 0, reset), or 401 UNKNOWN_API_KEY. Admitted IP clients
 *   get no X-RateLimit-* headers (they would cost a hit string work for every
 *   request; the budget is documented instead).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServerResponse } from 'node:http';
import { EDGE_ERRORS, ProxyError, envelopeBody } from '../errors/catalog.js';
import type { RateLimitGate } from '../ratelimit/index.js';
import { UNKNOWN_API_KEY, type RateLimiter } from '../ratelimit/limiter.js';
import { CORS_HEADERS } from './header-block.js';
import { writerOf, type EnvelopeWriter } from './envelope-writer.js';
import type { ClientAddress } from './client-address.js';

/** Requests the limiter leaves alone (the path registry's: rateLimitExempt in catalogue/paths.ts). */
export type RateLimitExempt = (request: FastifyRequest) => boolean;

/** Header announcing an API key's credits left. */
export const CREDITS_HEADER = 'x-credits-remaining';

const isKey = (clientKey: string): boolean => clientKey.charCodeAt(0) === 107; /* 'k': `key:<name>` */

/** Price of one request to `name` (`tx/list`, `pages/home`, ...): credits for an API key, one request for an IP. */
export function hitCost(gate: RateLimitGate, clientKey: string, name: string): number {
  return isKey(clientKey) ? gate.prices.hit(name) : 1;
}

/** `X-Credits-Remaining` for an API-key client, else null (nothing added for IP clients). */
export function creditHeaders(gate: RateLimitGate, clientKey: string): Record<string, string> | null {
  return isKey(clientKey) ? { [CREDITS_HEADER]: String(gate.budget.remaining(clientKey)) } : null;
}

const LIMITED_BODY = new ProxyError('RATE_LIMITED').toBody();
const UNKNOWN_KEY_BODY = envelopeBody(EDGE_ERRORS.UNKNOWN_API_KEY.code, EDGE_ERRORS.UNKNOWN_API_KEY.msg);
const EXPOSE =
  `${CORS_HEADERS['access-control-expose-headers']}, ` + 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/** Writes the 429 (retryMs > 0) or 401 (unknown key) for a refused request (`id`: its X-Request-Id). */
function refuse(
  gate: RateLimitGate,
  writer: EnvelopeWriter,
  res: ServerResponse,
  clientKey: string,
  retryMs: number,
  id?: string,
): void {
  if (clientKey === UNKNOWN_API_KEY) {
    gate.rl.unknownKey();
    writer.write(res, EDGE_ERRORS.UNKNOWN_API_KEY.status, UNKNOWN_KEY_BODY, {
      extra: ['access-control-expose-headers', EXPOSE],
      ...(id === undefined ? {} : { id }),
    });
    return;
  }
  gate.metrics.rateLimited();
  gate.rl.refused(clientKey);
  const seconds = String(Math.max(1, Math.ceil(retryMs / 1000)));
  const credits = isKey(clientKey) ? [CREDITS_HEADER, String(gate.budget.remaining(clientKey))] : [];
  writer.write(res, 429, LIMITED_BODY, {
    extra: [
      'access-control-expose-headers',
      EXPOSE,
      'retry-after',
      seconds,
      'x-ratelimit-limit',
      String(gate.limiter.limitOf(clientKey)),
      'x-ratelimit-remaining',
      '0',
      'x-ratelimit-reset',
      seconds,
      ...credits,
    ],
    ...(id === undefined ? {} : { id }),
  });
}

/** Charges `cost` to a client key: 0 when admitted, else the ms to wait (-1 for an unknown key). */
export function charge(gate: RateLimitGate, clientKey: string, cost: number): number {
  if (clientKey === UNKNOWN_API_KEY) return -1;
  const wait = gate.limiter.take(clientKey, cost);
  if (wait === 0) gate.rl.admitted(clientKey, cost);
  return wait;
}

/**
 * The one rate-limit step of a request, routed (the hook below) or answered
 * before the router (the epilogue): charges the client at `ip` (its
 * X-API-Key's key instead) the price of `name` (`tx/list`, `pages/home`).
 * Returns the client key when admitted; null when refused, its refusal written
 * to `out` (a Fastify reply is taken over first) with X-Request-Id `id`.
 */
export function admit(
  gate: RateLimitGate,
  writer: EnvelopeWriter,
  out: ServerResponse | FastifyReply,
  ip: string,
  apiKey: string | string[] | undefined,
  name: string,
  id: string,
): string | null {
  const key = gate.limiter.clientKey(ip, apiKey);
  const wait = charge(gate, key, hitCost(gate, key, name));
  if (wait === 0) return key;
  let res: ServerResponse;
  if (out instanceof ServerResponse) res = out;
  else {
    out.hijack();
    res = out.raw;
  }
  refuse(gate, writer, res, key, wait, id);
  return null;
}

/** The client key of a request that went through Fastify (request.ip honours TRUST_PROXY). */
export function requestClientKey(limiter: RateLimiter, request: FastifyRequest): string {
  return limiter.clientKey(request.ip, request.headers['x-api-key']);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function registerRateLimit(
  app: FastifyInstance,
  gate: RateLimitGate,
  exempt: RateLimitExempt,
  address: ClientAddress,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt(request)) return done();
    if ((request.routeOptions.config as { rateLimit?: boolean } | undefined)?.rateLimit === false) return done();
    const name = pathOf(request.raw.url ?? '/').slice(1);
    const key = admit(
      gate,
      writerOf(reply),
      reply,
      address.of(request.raw),
      request.headers['x-api-key'],
      name,
      request.id,
    );
    if (key === null) return;
    if (isKey(key)) reply.header(CREDITS_HEADER, String(gate.budget.remaining(key)));
    done();
  });
}
