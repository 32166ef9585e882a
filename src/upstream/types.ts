import type { ChainView } from '../chain/types.js';
import type { BreakerState } from '../common/breaker.js';
import type { ProxyError } from '../errors/catalog.js';
import type { EndpointName, Freshness } from '../catalogue/types.js';
import type { SitOutState } from './sit-out.js';

/**
 * Why the proxy itself asks the upstream (the `x-chainproxy-purpose` header):
 * a head probe, a block's touched-set read, a pending-pool poll, a background
 * refresh. A client's miss carries no purpose (and no header).
 */
export type Purpose = 'probe' | 'block' | 'pending' | 'refresh';

export const PURPOSE_HEADER = 'x-chainproxy-purpose';

export interface UpstreamRequest {
  /** Path and query relative to the upstream's base URL, e.g. `/tx/list?page=1&page_size=20`. */
  path: string;
  endpoint: EndpointName;
  /** 'head': only upstreams within maxLagBlocks of the best head. */
  freshness: Freshness;
  /**
   * Extra acceptance check on a parsed answer; a returned string rejects that
   * answer as UPSTREAM_LAGGING (or the reason) and the next upstream is tried.
   * Used e.g. to keep block/max monotonic. A returned ProxyError is thrown as it is.
   */
  accept?: ((res: UpstreamResponse) => string | ProxyError | null) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The block height the answer is about (block/detail?h=N, tx/list?block_height=N):
   * only upstreams whose own head (own final height when `final`) covers it are
   * asked while there is one, so an empty or not-found answer for a block an
   * upstream has not seen is never taken from it.
   */
  height?: { value: number; final: boolean } | null | undefined;
  /** The proxy's own background request (sent as PURPOSE_HEADER); null or absent: a client's miss. */
  purpose?: Purpose | null | undefined;
  /**
   * Pays for an attempt after the first (a retry, hedge or confirmation) of a fetch a client
   * leads: false when its miss budget is spent, and that attempt is not made. Absent: free.
   */
  extra?: (() => boolean) | null | undefined;
}

export interface UpstreamResponse {
  status: number;
  body: Buffer;
  /** JSON.parse(body): always a non-null object (anything else is UPSTREAM_BAD_RESPONSE). */
  json: Record<string, unknown>;
  /** Configured name of the upstream that answered. */
  upstream: string;
  durationMs: number;
  attempts: number;
  /**
   * Set when a 'head' request was answered by a lagging upstream because no
   * fresh one could take it (the pool falls back rather than failing).
   */
  laggingFallback?: boolean;
  /**
   * Head the answering upstream had last reported when it was asked
   * (null when unknown): the answer shows at least that block.
   */
  head?: number | null;
  /** The answer is about a height no asked upstream had (short-lived at most). */
  uncovered?: boolean;
}

export interface UpstreamStatus {
  name: string;
  url: string;
  healthy: boolean;
  lagging: boolean;
  head: number | null;
  lag: number | null;
  breaker: BreakerState;
  inFlight: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
  lastError: string | null;
  /** Ms since lastError was recorded (an old error beside a healthy upstream is history); null before one. */
  lastErrorAgoMs: number | null;
  /** Present while benched for misbehaviour (refuted head, minority of disputes) until `until` (ms epoch). */
  sittingOut?: SitOutState | null;
}

/** The upstream pool (one or more backends). Rejects only with ProxyError. */
export interface UpstreamPool {
  fetch(req: UpstreamRequest): Promise<UpstreamResponse>;
  /**
   * Ballots of a quorum vote: asks up to `count` distinct upstreams not in
   * `exclude` (healthy, fresh, covering the height, not sitting out), one
   * attempt each, in parallel. `asked` names every upstream an attempt went to.
   */
  ballots(
    req: UpstreamRequest,
    exclude: readonly string[],
    count: number,
  ): Promise<{ answers: UpstreamResponse[]; asked: string[] }>;
  readonly chain: ChainView;
  status(): UpstreamStatus[];
  /** At least one upstream healthy and not lagging. */
  ready(): boolean;
  close(): Promise<void>;
}
