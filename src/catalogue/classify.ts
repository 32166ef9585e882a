/**
 * Content-aware cache decisions for one upstream answer (see policies.ts for
 * the columns), plus the routing freshness a request needs.
 */
import type { ChainView } from '../chain/types.js';
import { isSuccessEnvelope } from '../transform/envelope.js';
import { isNegative } from '../upstream/judge.js';
import type { CanonicalRequest, Classification, ClassifyInput, EndpointName, EndpointPolicy, Freshness } from './types.js';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
}

function height(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return null;
  const h = Math.trunc(v);
  return Number.isSafeInteger(h) ? h : null;
}

function withinHead(h: number | null, chain: ChainView): boolean {
  const head = chain.bestHead();
  return h !== null && head !== null && h <= head;
}

function isFinal(height: number, chain: ChainView): boolean {
  const f = chain.finalHeight();
  return f !== null && height <= f;
}

const NOT_CACHEABLE: Classification = {
  cacheable: false,
  negative: false,
  ttlMs: 0,
  swrMs: 0,
  sieMs: 0,
  finalAt: null,
  headDependent: false,
  observedHead: null,
  observedFinal: null,
};

function answer(p: EndpointPolicy, ttlMs: number, headDependent: boolean, finalAt: number | null = null): Classification {
  return { ...NOT_CACHEABLE, cacheable: true, ttlMs, swrMs: p.swrMs, sieMs: p.sieMs, finalAt, headDependent };
}

/** Highest height with is_finality true among blocks. */
function highestFinal(blocks: readonly unknown[]): number | null {
  let best: number | null = null;
  for (const b of blocks) {
    const o = obj(b);
    if (o === null || o['is_finality'] !== true) continue;
    const h = height(o['height']);
    if (h !== null && (best === null || h > best)) best = h;
  }
  return best;
}

function success(req: CanonicalRequest, data: unknown, chain: ChainView): Classification {
  const p = req.endpoint.policy;
  const d = obj(data);
  switch (req.endpoint.name) {
    case 'block/max': {
      const c = answer(p, p.ttlMs, p.invalidateOnHead);
      return { ...c, observedHead: height(d?.['height']) };
    }
    case 'block/list': {
      const list = d?.['list'];
      const c = answer(p, p.ttlMs, p.invalidateOnHead);
      return { ...c, observedFinal: Array.isArray(list) ? highestFinal(list) : null };
    }
    case 'block/detail': {
      // A "final" block above every head the proxy trusts is not believed final.
      if (d?.['is_finality'] === true && withinHead(height(d['height']), chain)) return { ...answer(p, p.finalTtlMs, false), observedFinal: height(d['height']) };
      // Not final: the content itself (is_finality false) changes, so no promotion.
      return answer(p, p.volatileTtlMs, p.invalidateOnHead);
    }
    case 'tx/list': {
      const bh = req.params.get('block_height');
      if (bh === undefined) return answer(p, p.ttlMs, p.invalidateOnHead);
      const h = Number(bh);
      if (isFinal(h, chain)) return answer(p, p.finalTtlMs, false);
      // Promotion only for a block known to exist: a list fetched for a block above
      // the head (empty or partial) must never be kept for a day.
      const head = chain.bestHead();
      return answer(p, p.volatileTtlMs, false, head !== null && h <= head ? h : null);
    }
    case 'tx/detail': {
      if (d === null) return answer(p, p.volatileTtlMs, true);
      const bh = height(d['block_height']);
      // Pending (status 2) or not in a block yet: short, and stale once the head moves.
      if (d['status'] === 2 || bh === null) return answer(p, p.volatileTtlMs, true);
      return isFinal(bh, chain) ? answer(p, p.finalTtlMs, false) : answer(p, p.ttlMs, p.invalidateOnHead, bh);
    }
    default:
      return answer(p, p.ttlMs, p.invalidateOnHead);
  }
}

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
  if (isSuccessEnvelope(status, body)) return success(req, body['data'], chain);
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

/** The block height a request is about (block/detail?h=N, tx/list?block_height=N), final or not; null otherwise. */
export function heightOf(req: CanonicalRequest, chain: ChainView): { value: number; final: boolean } | null {
  const name = req.endpoint.name;
  let h: string | undefined;
  if (name === 'block/detail') h = req.params.get('h');
  else if (name === 'tx/list') h = req.params.get('block_height');
  if (h === undefined || h.length === 64) return null;
  const value = Number(h);
  if (!Number.isSafeInteger(value)) return null;
  return { value, final: isFinal(value, chain) };
}

const ANY: ReadonlySet<EndpointName> = new Set<EndpointName>([
  'token/list',
  'token/detail',
  'tx/count/history',
  'address/count/history',
  'nax/history',
]);

/** 'any': the answer cannot depend on how far an upstream has synced (final blocks, slow data). */
export function freshnessOf(req: CanonicalRequest, chain: ChainView): Freshness {
  const name = req.endpoint.name;
  if (ANY.has(name)) return 'any';
  let h: string | undefined;
  if (name === 'block/detail') h = req.params.get('h');
  else if (name === 'tx/list') h = req.params.get('block_height');
  // A 64-char h is a hash: a lagging upstream may not have that block yet.
  if (h === undefined || h.length === 64) return 'head';
  return isFinal(Number(h), chain) ? 'any' : 'head';
}
