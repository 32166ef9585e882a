/**
 * fetch → transform → classify: one upstream answer becomes a cache entry.
 * Every API answer must be good (src/upstream/judge.ts: envelope and record
 * schema) or a negative envelope; anything else is rejected inside the
 * upstream attempt, so it is retried elsewhere, counted against that upstream
 * and never cached. Links are spliced into the upstream's own bytes (never
 * re-serialized JSON), error answers are normalized to the envelope, TTLs
 * follow the content, and facts learned from the content (head, final height)
 * feed the tracker, which believes heads within bounds.
 */
import type { CanonicalRequest, Classification, EndpointName } from '../catalogue/types.js';
import { classify, distrusted, freshnessOf, heightOf } from '../catalogue/classify.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { CacheEntry } from '../cache/types.js';
import { createEntry } from '../cache/entry.js';
import { ProxyError } from '../errors/catalog.js';
import { rewriteLinks } from '../transform/links.js';
import { isSuccessEnvelope, normalizeError } from '../transform/envelope.js';
import { findStamps } from '../transform/stamps.js';
import { answerProblem } from '../upstream/judge.js';
import type { UpstreamPool, UpstreamRequest, UpstreamResponse } from '../upstream/types.js';
import type { Quorum } from '../consensus/quorum.js';

export interface Fetched {
  entry: CacheEntry;
  cacheable: boolean;
  upstream: string;
  upstreamMs: number;
}

export interface FetchStageDeps {
  pool: UpstreamPool;
  tracker: ChainTracker;
  publicBaseUrl: string;
  clock: () => number;
  /** Agreement of several upstreams before a final answer is kept (null: UPSTREAM_QUORUM 1, no vote). */
  quorum: Quorum | null;
}

function blockMaxHeight(json: Record<string, unknown>): number | null {
  const data = json['data'];
  if (typeof data !== 'object' || data === null) return null;
  const h = (data as Record<string, unknown>)['height'];
  return typeof h === 'number' && Number.isFinite(h) ? Math.trunc(h) : null;
}

export class FetchStage {
  readonly #deps: FetchStageDeps;
  /** Highest block/max height ever answered: block/max never goes backwards for clients. */
  #maxServedHead = 0;

  constructor(deps: FetchStageDeps) {
    this.#deps = deps;
    // Following every upstream down to a lower head lowers the floor too (else block/max would wedge).
    deps.tracker.on('rebase', (height: number) => {
      this.#maxServedHead = Math.min(this.#maxServedHead, height);
    });
  }

  get maxServedHead(): number {
    return this.#maxServedHead;
  }

  /** Good answers only (bad ones count against the upstream and are retried elsewhere). */
  readonly #good = (endpoint: EndpointName) => (res: UpstreamResponse): string | ProxyError | null => {
    const problem = answerProblem(endpoint, res.status, res.json, res.body);
    return problem === null ? null : new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: problem });
  };

  readonly #goodMax = this.#good('block/max');

  /** block/max: good, not behind what was served, and a head the tracker believes (else retried elsewhere). */
  readonly #blockMax = (res: UpstreamResponse): string | ProxyError | null => {
    const bad = this.#goodMax(res);
    if (bad !== null || !isSuccessEnvelope(res.status, res.json)) return bad;
    const height = blockMaxHeight(res.json);
    if (height === null) return 'block/max answer without a numeric height';
    if (height < this.#maxServedHead) return `block/max ${height} is behind ${this.#maxServedHead}, already served`;
    const { tracker } = this.#deps;
    const head = tracker.bestHead();
    if (head !== null && height > head && !tracker.plausible(height)) {
      tracker.observeHead(height, res.upstream); // a claim: a second source may confirm it
      const now = tracker.bestHead();
      if (now === null || height > now) {
        return new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: `block/max ${height} implausibly far ahead of ${head}` });
      }
    }
    return null;
  };

  #classify(req: CanonicalRequest, res: UpstreamResponse): Classification {
    const cls = classify({ req, status: res.status, json: res.json, chain: this.#deps.tracker });
    return res.uncovered === true || res.laggingFallback === true ? distrusted(cls, req.endpoint.policy) : cls;
  }

  async fetch(req: CanonicalRequest, signal?: AbortSignal): Promise<Fetched> {
    const { pool, tracker, publicBaseUrl, clock } = this.#deps;
    const headAtStart = tracker.bestHead();
    const isMax = req.endpoint.name === 'block/max';
    const ask: UpstreamRequest = {
      path: req.upstreamPath,
      endpoint: req.endpoint.name,
      freshness: freshnessOf(req, tracker),
      accept: isMax ? this.#blockMax : this.#good(req.endpoint.name),
      height: heightOf(req, tracker),
      signal,
    };
    const first = await pool.fetch(ask);
    const firstCls = this.#classify(req, first);
    // A final answer is kept only once several upstreams agree (UPSTREAM_QUORUM).
    const quorum = this.#deps.quorum;
    const { res, cls } = quorum === null ? { res: first, cls: firstCls } : await quorum.settle(req, ask, first, firstCls, (r) => this.#classify(req, r));

    const ok = isSuccessEnvelope(res.status, res.json);
    let status = res.status;
    let body: Buffer;
    if (ok) {
      body = rewriteLinks(res.body, req.endpoint.name, publicBaseUrl);
    } else {
      ({ status, body } = normalizeError(res.status, res.json, res.body));
    }
    if (cls.observedHead !== null) tracker.observeHead(cls.observedHead, res.upstream);
    if (cls.observedFinal !== null) tracker.observeFinal(cls.observedFinal);
    if (isMax && ok) {
      const h = blockMaxHeight(res.json);
      if (h !== null && h > this.#maxServedHead) this.#maxServedHead = h;
    }

    const entry = createEntry({
      key: req.key,
      status,
      body,
      createdAt: clock(),
      ttlMs: cls.ttlMs,
      swrMs: cls.swrMs,
      sieMs: cls.sieMs,
      head: headAtStart,
      headDependent: cls.headDependent,
      finalAt: cls.finalAt,
      negative: cls.negative,
      stamps: ok ? findStamps(body, req.endpoint.name) : [],
    });
    return { entry, cacheable: cls.cacheable, upstream: res.upstream, upstreamMs: res.durationMs };
  }
}
