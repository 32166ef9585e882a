/**
 * What endpoint modules share: `endpoint()` (defaults, and parameter names
 * checked by the compiler), policy rows, and the helpers of their lifetime
 * rules (`decide`: timing and keep; `livesOf`: a module's rule or the default).
 */
import type { Bound, Classification, EndpointPolicy, Keep, Lives, ParamSpec } from './types.js';
import type { FieldSpec } from './language.js';
import { MISSING_PREFIX } from './params.js';
import type { Dependency, EndpointModule, EndpointReference, StampDecl, SuccessInput } from './types.js';

interface Decl<Name extends string, P extends string> {
  path: Name;
  params: readonly ParamSpec<P>[];
  reference: EndpointReference<NoInfer<P>>;
  check?: (params: ReadonlyMap<string, string>) => string | null;
  data: FieldSpec;
  policy: EndpointPolicy;
  decide?: (input: SuccessInput) => Lives;
  about?: NoInfer<P>;
  freshness?: 'head' | 'any';
  hot?: boolean;
  finalCapable?: boolean;
  reportsHead?: boolean;
  stamps?: StampDecl;
  dependsOn: readonly Dependency<NoInfer<P>>[];
  everyChangeNamed?: boolean;
}

/** An endpoint module; parameters named in `about` and `dependsOn` must be its own. */
export function endpoint<const Name extends string, const P extends string = never>(
  d: Decl<Name, P>,
): EndpointModule<Name> {
  return Object.freeze({
    path: d.path,
    params: d.params,
    reference: d.reference,
    check: d.check ?? null,
    data: d.data,
    policy: Object.freeze({ ...d.policy }),
    decide: d.decide ?? null,
    about: d.about ?? null,
    freshness: d.freshness ?? 'head',
    hot: d.hot ?? false,
    finalCapable: d.finalCapable ?? false,
    reportsHead: d.reportsHead ?? false,
    stamps: d.stamps ?? NO_STAMPS,
    dependsOn: d.dependsOn,
    everyChangeNamed: d.everyChangeNamed ?? false,
  });
}

const NO_STAMPS: StampDecl = { data: [] };
/** `data.server_timestamp`: the service's "now". */
export const SERVER_TIMESTAMP: StampDecl = { data: ['server_timestamp'] };

const S = 1000;
export const SEC = S;
export const MIN = 60 * S;
export const DAY = 24 * 60 * MIN;

/**
 * A policy row (see src/catalogue/policies.ts for the columns). Stale-if-error
 * is a day and negative caching a second everywhere.
 */
export function policy(
  ttlMs: number,
  finalTtlMs: number,
  volatileTtlMs: number,
  swrMs: number,
  invalidateOnHead: boolean,
): EndpointPolicy {
  return { ttlMs, finalTtlMs, volatileTtlMs, swrMs, sieMs: DAY, negativeTtlMs: 1 * S, invalidateOnHead };
}

/** One TTL for every kind of answer, and the same stale-while-revalidate window. */
export function flat(ttlMs: number, invalidateOnHead: boolean): EndpointPolicy {
  return policy(ttlMs, ttlMs, ttlMs, ttlMs, invalidateOnHead);
}

type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
}

/** A block height in content: a finite non-negative number, truncated; null otherwise. */
export function height(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return null;
  const h = Math.trunc(v);
  return Number.isSafeInteger(h) ? h : null;
}

export const NOT_CACHEABLE: Classification = {
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

/** A cacheable answer kept `ttlMs`, with the policy's stale windows. */
export function answer(
  p: EndpointPolicy,
  ttlMs: number,
  headDependent: boolean,
  finalAt: number | null = null,
): Classification {
  return { ...NOT_CACHEABLE, cacheable: true, ttlMs, swrMs: p.swrMs, sieMs: p.sieMs, finalAt, headDependent };
}

/** The ordinary answer: the policy's ttl and head rule. */
export function ordinary(p: EndpointPolicy): Classification {
  return answer(p, p.ttlMs, p.invalidateOnHead);
}

/** Kept by its own timing only (no tags, no watch). */
export const KEEP_OWN: Keep = { by: 'own' };

/** Kept by the dependencies `on`, at most `bound`. */
export function keepBy(on: readonly Dependency[], bound: Bound): Keep {
  return { by: 'deps', on, bound };
}

/**
 * How an answer of module `m` lives: its own rule, or the policy's ttl and head
 * rule; kept (unless the rule says) by every dependency it declares.
 */
export function livesOf(m: EndpointModule, input: SuccessInput): Required<Lives> {
  const own = m.decide?.(input);
  return {
    cls: own?.cls ?? ordinary(input.policy),
    keep: own?.keep ?? keepBy(m.dependsOn, m.everyChangeNamed ? 'list' : 'max-age'),
  };
}

/** token/tx/list and token/holders: exactly one of token or contract. */
export function tokenOrContract(params: ReadonlyMap<string, string>): string | null {
  const t = params.has('token');
  const c = params.has('contract');
  if (t && c) return 'invalid parameter token/contract: expected exactly one of token or contract, got both';
  if (!t && !c)
    return (
      `${MISSING_PREFIX} token or contract: expected exactly one of ` +
      'token (a token name) or contract (a contract address)'
    );
  return null;
}
