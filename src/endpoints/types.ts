/**
 * Everything the proxy knows about one endpoint, declared in its module
 * (src/endpoints/<name>.ts) and listed once in the registry (index.ts).
 */
import type { ChainView } from '../chain/types.js';
import type { FieldSpec } from './language.js';

/** JSON Schema of a parameter value (the OpenAPI 3.1 dialect). */
type ValueSchema = { [key: string]: unknown };

/** What the OpenAPI document says about a parameter kind; bounds from the configured limits. */
export interface ParamDoc {
  schema: ValueSchema;
  description: string;
  example: unknown;
}

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
  /**
   * The pending pool: every block, and changes the pending poll sees between blocks; with `param` (a
   * transaction's hash), only that transaction leaving the pool (mined, or dropped).
   */
  | { on: 'pending'; param?: P }
  /** The calendar day (daily series roll over at midnight). */
  | { on: 'day' }
  /** The NAX distribution stage (answers that do not state when it ends). */
  | { on: 'nax-stage' }
  /**
   * The NAX stage ending at the height in `field` of the answer's data: it changes when the head reaches that
   * height.
   */
  | { on: 'stage-end'; field: string }
  /**
   * Finality and hash of the block named by `param` (its height; a hash: the height in `field` of the answer's
   * data, when given), or by `field` of the answer's data.
   */
  | { on: 'finality'; param: P; field?: string }
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

/** What the block reader knows when an answer is stored (precise invalidation; null in head mode). */
export interface ReaderFacts {
  /** The pending pool is polled between blocks (else what depends on it keeps its own rule). */
  readonly pendingPolled: boolean;
  /** The reader saw this transaction in the pool and not leave it (it would see it leave). */
  inPool(hash: string): boolean;
  /** The hash the reader knows a height by. */
  hashOf(height: number): string | undefined;
}

/** A successful answer, for the endpoint's rule. */
export interface SuccessInput {
  params: ReadonlyMap<string, string>;
  /** The envelope's `data` (its record schema already checked). */
  data: unknown;
  policy: EndpointPolicy;
  chain: ChainView;
  /** Null in head mode (and when only the timing is asked for). */
  reader: ReaderFacts | null;
}

/**
 * How long a tag-kept answer may stay fresh at most: 'max-age' (INVALIDATION_MAX_AGE_MS: changes the API cannot
 * show), 'list' (a block names every change: INVALIDATION_LIST_MAX_AGE_MS, earned up), 'told' (the block reader
 * tells every change: its finality, a new hash, its leaving the pool; a final answer's TTL).
 * invalidation.maxAgeByEndpoint overrides each.
 */
export type Bound = 'max-age' | 'list' | 'told';

/** Under precise invalidation, what keeps an answer beyond its own timing. */
export type Keep =
  /** Its own timing only (the classification's TTL and head rule). */
  | { by: 'own' }
  /** The dependencies that apply to this answer (its tags, its finality watch, its head rule), and its bound. */
  | { by: 'deps'; on: readonly Dependency[]; bound: Bound };

/** How a success answer lives: its timing in both modes and, unless given, the default keep (all `dependsOn`). */
export interface Lives {
  cls: Classification;
  keep?: Keep;
}

/** What the API reference's endpoint table says of it (docs/api.md, generated by `npm run docs`). */
export interface EndpointReference<P extends string = string> {
  /** What `data` holds in a success answer. */
  readonly data: string;
  /** A word on a parameter, after its name. */
  readonly notes?: Readonly<Partial<Record<P, string>>>;
  /** Parameters of which exactly one must be given (its `check` enforces it). */
  readonly oneOf?: readonly P[];
}

export interface EndpointModule<Name extends string = string> {
  /** API path without the leading slash; also the metrics label. */
  readonly path: Name;
  /** Parameters; the cache key orders them by name. */
  readonly params: readonly ParamSpec[];
  readonly reference: EndpointReference;
  /** Cross-parameter rule (e.g. exactly one of token/contract); returns an error message or null. */
  readonly check: ((params: ReadonlyMap<string, string>) => string | null) | null;
  /** Record schema of `data` in a success answer. */
  readonly data: FieldSpec;
  /** Default cache policy (every value overridable per endpoint in CONFIG_FILE). */
  readonly policy: Readonly<EndpointPolicy>;
  /**
   * How a success answer lives (its timing, and under precise invalidation what keeps it); null: the
   * policy's ttl and head rule, kept by every `dependsOn`.
   */
  readonly decide: ((input: SuccessInput) => Lives) | null;
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
