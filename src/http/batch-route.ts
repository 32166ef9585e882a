/**
 * POST /batch `{"requests": ["<endpoint>?<query>", …]}`: each item
 * served like a direct request (serve() with its endpoint's entrance), all in
 * parallel. The answer lists, per item, the request, its HTTP status,
 * cache result and its own envelope (bytes as a direct request gets them).
 * One bad item does not fail the others; a malformed batch is a 400. Each
 * item is counted by the epilogue like a direct request; the batch answer
 * leaves through it too, with one log line for the batch.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import { blockMax } from '../endpoints/block-max.js';
import { txDetail } from '../endpoints/tx-detail.js';
import { ProxyError, toProxyError } from '../errors/catalog.js';
import type { Resolver } from '../pipeline/resolver.js';
import { bodyOf } from './answer.js';
import { sendEnvelope } from './envelope-writer.js';
import { endpointEntrance } from './entrances.js';
import { exitOf, NOT_COUNTED, type Epilogue, type Exit, type Family, type Outlet } from './epilogue.js';
import { BATCH_PATH } from '../catalogue/paths.js';
import { enveloped, refused, serve, type Entrance } from './serve.js';
import type { MissPayer } from '../ratelimit/payer.js';
import type { PayerOf } from './miss-payer.js';

/**
 * Charges a batch of `items` to the client's rate limit. The request itself
 * was already counted once by the limiter's own hook: charge the rest.
 * Returns the error to answer with when over the limit, else null.
 */
export type ChargeBatch = (request: FastifyRequest, items: number) => Promise<ProxyError | null>;

export interface BatchRouteDeps {
  catalogue: Catalogue;
  resolver: Resolver;
  chain: { bestHead(): number | null };
  epilogue: Epilogue;
  limits: ParamLimits & { maxBatchItems: number; requestTimeoutMs: number };
  /** null when rate limiting is off. */
  chargeBatch: ChargeBatch | null;
  /** Who pays for the upstream requests the items lead (null: nobody). */
  payer?: PayerOf | null;
  clock: () => number;
}

/** The batch answer: not counted itself (its items are), one log line. */
const BATCH: Family = { count: NOT_COUNTED, msg: 'batch', field: 'endpoint' };
const ITEM: Outlet = { kind: 'item' };

interface ItemAnswer {
  request: string;
  status: number;
  cache: string;
  body: Buffer;
}

/** The batch's refusals: envelopes through the one writer (the answer leaves through the epilogue). */
function send(reply: FastifyReply, status: number, body: Buffer, head: number | null): void {
  sendEnvelope(reply, status, body, { head });
}

/**
 * How a non-string item is echoed: scalars as JSON, arrays and objects by
 * their kind only (never serialized: a client may nest them arbitrarily deep).
 */
function shownOf(raw: unknown): string {
  if (Array.isArray(raw)) return '[…]';
  if (typeof raw === 'object' && raw !== null) return '{…}';
  return String(raw).slice(0, 200);
}

const ITEM_EXAMPLES = `"${blockMax.path}" or "${txDetail.path}?hash=…"`;

/** The `requests` array, or the 400 naming what is wrong. */
function batchItems(body: unknown, max: number): unknown[] {
  const list =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)['requests']
      : undefined;
  if (list === undefined)
    throw new ProxyError(
      'MISSING_PARAMETER',
      'missing parameter requests: expected a JSON body {"requests": ["endpoint?query", …]}',
    );
  if (!Array.isArray(list))
    throw new ProxyError('BAD_PARAMETER', 'invalid parameter requests: expected an array of request strings');
  if (list.length === 0 || list.length > max)
    throw new ProxyError('BAD_PARAMETER', `invalid parameter requests: expected 1 to ${max} items, got ${list.length}`);
  return list;
}

/** The batch answer's envelope: each item's request, status, cache result and body. */
function batchBody(answers: readonly ItemAnswer[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('{"code":0,"msg":"success","data":[')];
  answers.forEach((a, i) => {
    chunks.push(
      Buffer.from(
        `${i === 0 ? '' : ','}{"request":${JSON.stringify(a.request)},` +
          `"status":${a.status},"cache":"${a.cache}","body":`,
      ),
      a.body,
      Buffer.from('}'),
    );
  });
  chunks.push(Buffer.from(']}'));
  return Buffer.concat(chunks);
}

export function registerBatchRoute(app: FastifyInstance, deps: BatchRouteDeps): void {
  const { catalogue, resolver, chain, epilogue, limits, clock } = deps;
  const other = exitOf(epilogue.endpoints, 'other');
  const batchExit = exitOf(BATCH, 'batch');
  const exits = new Map<EndpointDef, Exit>();
  const exitFor = (endpoint: EndpointDef): Exit => {
    let e = exits.get(endpoint);
    if (e === undefined) exits.set(endpoint, (e = exitOf(epilogue.endpoints, endpoint.name)));
    return e;
  };

  const payerOf = deps.payer ?? null;
  const byEndpoint = new Map<EndpointDef, Entrance<CanonicalRequest>>();
  const entrances = (endpoint: EndpointDef): Entrance<CanonicalRequest> => {
    let e = byEndpoint.get(endpoint);
    if (e === undefined) byEndpoint.set(endpoint, (e = endpointEntrance(endpoint, resolver, limits)));
    return e;
  };

  const item = async (raw: unknown, index: number, payer: MissPayer | null): Promise<ItemAnswer> => {
    const started = performance.now();
    if (typeof raw !== 'string') {
      const err = new ProxyError(
        'BAD_PARAMETER',
        `invalid batch item ${index}: expected a request string such as ${ITEM_EXAMPLES}`,
      );
      const a = refused(err);
      epilogue.finish(other, a, started, ITEM);
      return { request: shownOf(raw), status: a.status, cache: a.cache, body: a.failure.body };
    }
    const shown = raw.length > 200 ? `${raw.slice(0, 200)}...` : raw;
    const q = raw.indexOf('?');
    const bare = q < 0 ? raw : raw.slice(0, q);
    const path = bare.startsWith('/') ? bare : `/${bare}`;
    const endpoint = catalogue.match(path);
    if (endpoint === undefined) {
      const err = new ProxyError('ROUTE_NOT_FOUND', `no such endpoint: ${path.slice(0, 80)}`);
      const a = refused(err);
      epilogue.finish(other, a, started, ITEM);
      return { request: shown, status: a.status, cache: a.cache, body: a.failure.body };
    }
    const a = await serve(entrances(endpoint), {
      url: q < 0 ? '' : raw.slice(q),
      timeoutMs: limits.requestTimeoutMs,
      clock,
      miss: () => ({ gone: undefined, payer }),
    });
    epilogue.finish(exitFor(endpoint), a, started, ITEM);
    return {
      request: shown,
      status: a.status,
      cache: a.cache,
      body: a.res === null ? a.failure.body : bodyOf(a.res, clock()),
    };
  };

  app.post(BATCH_PATH, async (request, reply) => {
    let items: unknown[];
    try {
      items = batchItems(request.body, limits.maxBatchItems);
    } catch (e) {
      const err = toProxyError(e);
      return send(reply, err.status, err.toBody(), chain.bestHead());
    }
    if (deps.chargeBatch !== null) {
      const refused = await deps.chargeBatch(request, items.length);
      if (refused !== null) return send(reply, refused.status, refused.toBody(), chain.bestHead());
    }
    const started = performance.now();
    const payer = payerOf === null ? null : payerOf(request, reply);
    const answers = await Promise.all(items.map((raw, i) => item(raw, i, payer)));
    const a = enveloped(200, batchBody(answers));
    const note = {
      fields: { batch: answers.length, items: answers.map((x) => `${x.status}:${x.cache}`).join(',') },
      freshHit: answers.every((x) => x.cache === 'HIT'),
    };
    epilogue.finish(batchExit, a, started, { kind: 'routed', request, reply }, note);
    return reply;
  });
  // Other methods and the CORS preflight: the registry's fallbacks (fallbacks.ts).
}
