/**
 * The timing of one upstream answer (see policies.ts for the columns): a
 * success answer's is its endpoint module's rule (`decide`, src/endpoints/*.ts);
 * here only what holds for every endpoint (envelopes, negative answers, an
 * answer about a block above the trusted head), plus the routing freshness a
 * request needs.
 */
import type { ChainView } from '../chain/types.js';
import { height, livesOf, NOT_CACHEABLE, obj, ordinary } from '../endpoints/kit.js';
import { isFinalHeight } from '../endpoints/facts.js';
import { isNegative, isSuccessEnvelope } from '../transform/envelope.js';
import type { Classification, EndpointPolicy } from '../endpoints/types.js';
import type { CanonicalRequest, ClassifyInput, Freshness } from './types.js';

/**
 * Success is the good-answer envelope (src/upstream/judge.ts; the record schema
 * of `data` was checked at the upstream boundary). Not-found / client-error
 * answers (4xx, or 2xx with a non-zero code) are short negative entries.
 * Anything else (5xx, redirects, `code` 0 without `msg`, no envelope) is never stored.
 */
export function classify(input: ClassifyInput): Classification {
  const { req, status, json, chain } = input;
  const body = obj(json);
  if (body === null) return NOT_CACHEABLE;
  if (isSuccessEnvelope(status, body)) {
    const m = req.endpoint.module;
    const policy = req.endpoint.policy;
    const data = body['data'];
    const cls =
      m === undefined ? ordinary(policy) : livesOf(m, { params: req.params, data, policy, chain, reader: null }).cls;
    if (!cls.cacheable) return cls;
    return aboveHead(req, data, chain) ? { ...distrusted(cls, policy), headDependent: true } : cls;
  }
  const code = body['code'];
  if (!isNegative(status, body)) return { ...NOT_CACHEABLE, negative: typeof code === 'number' && code !== 0 };
  const neg = req.endpoint.policy.negativeTtlMs;
  return { ...NOT_CACHEABLE, negative: true, cacheable: neg > 0, ttlMs: neg };
}

/**
 * An answer that no upstream whose head covers its block could give (every
 * asked upstream was behind the requested height, or lagging): never kept
 * longer than the volatile TTL, never promoted, no stale windows.
 */
export function distrusted(c: Classification, policy: EndpointPolicy): Classification {
  if (!c.cacheable) return c;
  const ttlMs = Math.min(c.ttlMs, c.negative ? policy.negativeTtlMs : policy.volatileTtlMs);
  return { ...c, ttlMs, swrMs: 0, sieMs: 0, finalAt: null, observedFinal: null };
}

/** The value of the parameter naming the block the request is about, unless it is a hash (64 characters). */
function aboutHeight(req: CanonicalRequest): string | undefined {
  const about = req.endpoint.module?.about ?? null;
  const h = about === null ? undefined : req.params.get(about);
  return h === undefined || h.length === 64 ? undefined : h;
}

/**
 * The height of the block an answer is about (its finality dependency): the
 * height parameter, the height of the block a hash named, or the block its data
 * names (a mined transaction's); null when it is about no block.
 */
function answerHeight(req: CanonicalRequest, data: unknown): number | null {
  for (const d of req.endpoint.module?.dependsOn ?? []) {
    if (d.on !== 'finality') continue;
    if (!('param' in d)) return height(obj(data)?.[d.field]);
    const v = req.params.get(d.param);
    if (v === undefined) return null;
    if (v.length === 64) return height(obj(data)?.['height']);
    const n = Number(v);
    return Number.isSafeInteger(n) && n >= 0 ? n : null;
  }
  return null;
}

/**
 * An answer about a block above the head the proxy trusts (or before any head
 * is trusted): kept the volatile TTL at most, by the head rule, never by tags
 * or a finality watch, and never read by the block reader.
 */
export function aboveHead(req: CanonicalRequest, data: unknown, chain: ChainView): boolean {
  const h = answerHeight(req, data);
  if (h === null) return false;
  const best = chain.bestHead();
  return best === null || h > best;
}

/** The block height a request is about (block/detail?h=N, tx/list?block_height=N), final or not; null otherwise. */
export function heightOf(req: CanonicalRequest, chain: ChainView): { value: number; final: boolean } | null {
  const h = aboutHeight(req);
  if (h === undefined) return null;
  const value = Number(h);
  if (!Number.isSafeInteger(value)) return null;
  return { value, final: isFinalHeight(value, chain.finalHeight()) };
}

/** 'any': the answer cannot depend on how far an upstream has synced (final blocks, slow data). */
export function freshnessOf(req: CanonicalRequest, chain: ChainView): Freshness {
  if (req.endpoint.module?.freshness === 'any') return 'any';
  // A hash names a block a lagging upstream may not have yet.
  const h = aboutHeight(req);
  return h !== undefined && isFinalHeight(Number(h), chain.finalHeight()) ? 'any' : 'head';
}
