import type { ChainView } from '../chain/types.js';
import type { EndpointName } from '../endpoints/index.js';
import type { EndpointModule, EndpointPolicy, ParamSpec } from '../endpoints/types.js';

export { ENDPOINT_NAMES, type EndpointName } from '../endpoints/index.js';

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

/** Routing need of a request: only non-lagging upstreams ('head') or any healthy one ('any'). */
export type Freshness = 'head' | 'any';
