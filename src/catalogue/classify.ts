/**
 * Content-aware cache decisions for one upstream answer (see policies.ts for
 * the columns), plus the routing freshness a request needs.
 */
import type { ChainView } from '../chain/types.js';
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
      if (d?.['is_finality'] === true) return { ...answer(p, p.finalTtlMs, false), observedFinal: height(d['height']) };
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

export function classify(input: ClassifyInput): Classification {
  const { req, status, json, chain } = input;
  const body = obj(json);
  const code = body?.['code'];
  // Upstream failures (5xx, redirects, anything odd) and malformed envelopes are never stored.
  if (body === null || typeof code !== 'number' || status < 200 || status >= 500 || (status >= 300 && status < 400)) {
    return { ...NOT_CACHEABLE, negative: body !== null && typeof code === 'number' && code !== 0 };
  }
  if (status < 300 && code === 0) return success(req, body['data'], chain);
  // Not-found / client error envelope (4xx, or 2xx with a non-zero code): negative entry.
  const neg = req.endpoint.policy.negativeTtlMs;
  return { ...NOT_CACHEABLE, negative: true, cacheable: neg > 0, ttlMs: neg };
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
