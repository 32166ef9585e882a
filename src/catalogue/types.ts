import type { ChainView } from '../chain/types.js';
import type { EndpointName } from '../endpoints/index.js';
import type { EndpointModule } from '../endpoints/types.js';
import type { ParamDoc } from '../endpoints/params.js';

export { ENDPOINT_NAMES, type EndpointName } from '../endpoints/index.js';

/** Limits that bound parameter values (configurable). */
export interface ParamLimits {
  maxPageSize: number;
  maxDays: number;
}

export type ParseResult = { ok: true; value: string } | { ok: false; expected: string };

export interface ParamSpec<N extends string = string> {
  name: N;
  required: boolean;
  /** Canonical default applied when absent (so equivalent requests share a key). */
  defaultValue?: string | undefined;
  /** Validates a raw (already percent-decoded) value and returns its canonical form. */
  parse(raw: string, limits: ParamLimits): ParseResult;
  /** What the OpenAPI document says about it (schema bounds from the limits). */
  doc(limits: ParamLimits): ParamDoc;
}

/** Cache timings of one endpoint; every value overridable per endpoint in CONFIG_FILE. */
export interface EndpointPolicy {
  /** Freshness of an ordinary answer. */
  ttlMs: number;
  /** Freshness once the content is immutable (final block, confirmed tx in a final block). */
  finalTtlMs: number;
  /** Freshness of content still moving (non-final block, pending tx). */
  volatileTtlMs: number;
  /** Stale-while-revalidate window after expiry: answer stale at once, refresh in background. */
  swrMs: number;
  /** Stale-if-error window after expiry: answer stale when the upstream fails. */
  sieMs: number;
  /** Freshness of an upstream not-found / client-error envelope (0 disables negative caching). */
  negativeTtlMs: number;
  /** Entries are stale as soon as the best head moves past the head they were fetched at. */
  invalidateOnHead: boolean;
}

export interface EndpointDef {
  name: EndpointName;
  params: readonly ParamSpec[];
  /** Cross-parameter rule (e.g. exactly one of token/contract); returns an error message or null. */
  check?: ((params: ReadonlyMap<string, string>) => string | null) | undefined;
  policy: EndpointPolicy;
  /** Everything else declared about the endpoint (src/endpoints); absent for a page's parameter shape. */
  module?: EndpointModule | undefined;
}

/** A validated request: canonical params (defaults applied, unknown dropped), key and upstream path. */
export interface CanonicalRequest {
  endpoint: EndpointDef;
  params: ReadonlyMap<string, string>;
  /** Cache key: `tx/list?page=1&page_size=20` (params sorted by name, canonical values). */
  key: string;
  /** Path and query forwarded to the upstream, relative to its base URL: `/tx/list?page=1&page_size=20`. */
  upstreamPath: string;
}

export interface ClassifyInput {
  req: CanonicalRequest;
  /** HTTP status the upstream answered with. */
  status: number;
  /** Parsed body (already known to be a JSON object). */
  json: unknown;
  chain: ChainView;
}

/** What classification decides about one upstream answer. */
export interface Classification {
  /** Store it at all (false for upstream 5xx-equivalents, malformed envelopes). */
  cacheable: boolean;
  /** An error envelope from the upstream (non-zero code); stored only with negativeTtlMs. */
  negative: boolean;
  ttlMs: number;
  swrMs: number;
  sieMs: number;
  /** When set: the entry may be kept for finalTtlMs once chain.finalHeight() >= finalAt. */
  finalAt: number | null;
  headDependent: boolean;
  /** Facts learned from the content, fed to the ChainTracker. */
  observedHead: number | null;
  observedFinal: number | null;
}

/** Routing need of a request: only non-lagging upstreams ('head') or any healthy one ('any'). */
export type Freshness = 'head' | 'any';
