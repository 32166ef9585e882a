/**
 * fetch → transform → classify: one upstream answer becomes a cache entry.
 * Links are spliced into the upstream's own bytes (never re-serialized JSON),
 * error answers are normalized to the envelope, TTLs follow the content, and
 * facts learned from the content (head, final height) feed the tracker.
 */
import type { CanonicalRequest } from '../catalogue/types.js';
import { classify, freshnessOf } from '../catalogue/classify.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { CacheEntry } from '../cache/types.js';
import { createEntry } from '../cache/entry.js';
import { rewriteLinks } from '../transform/links.js';
import { isSuccessEnvelope, normalizeError } from '../transform/envelope.js';
import { findStamps } from '../transform/stamps.js';
import type { UpstreamPool, UpstreamResponse } from '../upstream/types.js';

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
  }

  get maxServedHead(): number {
    return this.#maxServedHead;
  }

  readonly #monotonic = (res: UpstreamResponse): string | null => {
    if (!isSuccessEnvelope(res.status, res.json)) return null;
    const height = blockMaxHeight(res.json);
    if (height === null) return 'block/max answer without a numeric height';
    if (height < this.#maxServedHead) return `block/max ${height} is behind ${this.#maxServedHead}, already served`;
    return null;
  };

  async fetch(req: CanonicalRequest, signal?: AbortSignal): Promise<Fetched> {
    const { pool, tracker, publicBaseUrl, clock } = this.#deps;
    const headAtStart = tracker.bestHead();
    const isMax = req.endpoint.name === 'block/max';
    const res = await pool.fetch({
      path: req.upstreamPath,
      endpoint: req.endpoint.name,
      freshness: freshnessOf(req, tracker),
      accept: isMax ? this.#monotonic : undefined,
      signal,
    });

    const ok = isSuccessEnvelope(res.status, res.json);
    let status = res.status;
    let body: Buffer;
    if (ok) {
      body = rewriteLinks(res.body, req.endpoint.name, publicBaseUrl);
    } else {
      ({ status, body } = normalizeError(res.status, res.json, res.body));
    }
    const cls = classify({ req, status: res.status, json: res.json, chain: tracker });
    if (cls.observedHead !== null) tracker.observeHead(cls.observedHead);
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
