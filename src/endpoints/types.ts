/**
 * Everything the proxy knows about one endpoint, declared in its module
 * (src/endpoints/<name>.ts) and listed once in the registry (index.ts).
 */
import type { ChainView } from '../chain/types.js';
import type { Classification, EndpointPolicy, ParamSpec } from '../catalogue/types.js';
import type { FieldSpec } from './language.js';

/**
 * What an answer depends on: the entry may change when a block names one of
 * these (read by content-driven invalidation). `param` names the request
 * parameter carrying the value (absent in the request: the tag does not apply).
 */
export type Dependency<P extends string = string> =
  /** Any new block (global lists and statistics); with `unless`, only when that parameter is absent. */
  | { on: 'head'; unless?: P }
  /** The address in `param`: a block touching it (sender, receiver, miner, transfer party). */
  | { on: 'address'; param: P }
  /** The contract in `param` (its calls, transfers and deployment). */
  | { on: 'contract'; param: P }
  /** The token named in `param`. */
  | { on: 'token'; param: P }
  /** Any contract deployed (a new token is a new contract). */
  | { on: 'deployment' }
  /** The pending pool: every block, and changes the pending poll sees between blocks. */
  | { on: 'pending' }
  /** The calendar day (daily series roll over at midnight). */
  | { on: 'day' }
  /** The NAX distribution stage (answers that do not state when it ends). */
  | { on: 'nax-stage' }
  /** The NAX stage ending at the height in `field` of the answer's data: it changes when the head reaches that height. */
  | { on: 'stage-end'; field: string }
  /** Finality and hash of the block named by `param`, or by `field` of the answer's data. */
  | { on: 'finality'; param: P }
  | { on: 'finality'; field: string };

/**
 * Time-relative fields ("volatile stamps"): re-stamped on every hit and ignored
 * when comparing content. `data` lists members of `data`; `items` the members
 * of each item of the array `data[list]` (`diff` is now minus the item's `base`, ms).
 */
export interface StampDecl {
  data: readonly string[];
  items?: { list: string; now: string; diff: string; base: string };
}

/** A successful answer, for the endpoint's content-aware classification. */
export interface SuccessInput {
  params: ReadonlyMap<string, string>;
  /** The envelope's `data` (its record schema already checked). */
  data: unknown;
  policy: EndpointPolicy;
  chain: ChainView;
}

export interface EndpointModule<Name extends string = string> {
  /** API path without the leading slash; also the metrics label. */
  readonly path: Name;
  /** Parameters; the cache key orders them by name. */
  readonly params: readonly ParamSpec[];
  /** Cross-parameter rule (e.g. exactly one of token/contract); returns an error message or null. */
  readonly check: ((params: ReadonlyMap<string, string>) => string | null) | null;
  /** Record schema of `data` in a success answer. */
  readonly data: FieldSpec;
  /** Default cache policy (every value overridable per endpoint in CONFIG_FILE). */
  readonly policy: Readonly<EndpointPolicy>;
  /** Content-aware classification of a success answer; null: the policy's ttl and head rule. */
  readonly classify: ((input: SuccessInput) => Classification) | null;
  /** The parameter naming the block the answer is about (a height, or a hash), or null. */
  readonly about: string | null;
  /** 'any': the answer cannot depend on how far an upstream has synced (slow data); 'head' otherwise. */
  readonly freshness: 'head' | 'any';
  /** Its first page moves with the head and is polled (refreshed ahead on a new head). */
  readonly hot: boolean;
  /** Its content can become final (kept for the final TTL). */
  readonly finalCapable: boolean;
  /** The answer is the chain head itself (never served backwards; feeds the tracker). */
  readonly reportsHead: boolean;
  readonly stamps: StampDecl;
  readonly dependsOn: readonly Dependency[];
  /**
   * Every change of its answer is a transaction a block or the pending pool
   * names (no internal transfers can move it): kept by its tags up to
   * INVALIDATION_LIST_MAX_AGE_MS rather than INVALIDATION_MAX_AGE_MS.
   */
  readonly everyChangeNamed: boolean;
}
