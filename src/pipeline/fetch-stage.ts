/**
 * fetch → transform → classify: one upstream answer becomes a cache entry.
 * Every API answer must be good (src/upstream/judge.ts: envelope and record
 * schema) or a negative envelope; anything else is rejected inside the
 * upstream attempt, so it is retried elsewhere, counted against that upstream
 * and never cached. A head answer must also pass the head guard (never behind
 * what was served, never an implausible head). Links are spliced into the
 * upstream's own bytes (never re-serialized JSON), error answers are
 * normalized to the envelope, TTLs follow the content, and the facts the
 * answer showed (head, final height) are handed to the caller to apply
 * before the entry's lifetime is decided (an answer that shows a block final
 * is stored as final, not watched until it is). The entry is stamped with
 * the head the answer is known to show (its upstream's, or the newest block
 * it lists), never above the best head when the fetch began: a touched set
 * for any block above that stamp stales it.
 */
import type { CanonicalRequest, EndpointName } from '../catalogue/types.js';
import type { Classification } from '../endpoints/types.js';
import { classify, distrusted, freshnessOf, heightOf } from '../catalogue/classify.js';
import type { HeadGuard } from './head-guard.js';
import type { ChainFacts, ChainView } from '../chain/types.js';
import type { CacheEntry } from '../cache/types.js';
import { createEntry } from '../cache/entry.js';
import { keptBy, OWN_RULE } from '../cache/lifetime.js';
import { ProxyError } from '../errors/catalog.js';
import { height, obj } from '../endpoints/kit.js';
import { rewriteLinks } from '../transform/links.js';
import { isSuccessEnvelope, normalizeError } from '../transform/envelope.js';
import { findStamps } from '../transform/stamps.js';
import { answerProblem } from '../upstream/judge.js';
import type { Purpose, UpstreamPool, UpstreamRequest, UpstreamResponse } from '../upstream/types.js';
import type { Quorum } from '../consensus/quorum.js';
import type { PreciseRule } from '../invalidation/rule.js';
import type { GuardReason } from '../invalidation/metrics.js';
import type { Fetched } from '../invalidation/own-reads.js';
import { headerTags } from '../invalidation/tags.js';

export interface FetchStageDeps {
  pool: UpstreamPool;
  chain: ChainView;
  headGuard: HeadGuard;
  publicBaseUrl: string;
  clock: () => number;
  /** Agreement of several upstreams before a final answer is kept (null: UPSTREAM_QUORUM 1, no vote). */
  quorum: Quorum | null;
  /** Tags instead of the head rule (INVALIDATION_MODE=precise); null: the endpoints' own rules. */
  precise?: PreciseRule | null;
  /** Entries carry their tags for the Cache-Tag and Surrogate-Key headers (CACHE_TAG_HEADERS). */
  tagHeaders?: boolean;
  /** Counts a fact not trusted (an answer stamped below the best head: `behind-upstream`); null: not counted. */
  guarded?: ((reason: GuardReason) => void) | null;
  /** The entry stored in place of the one it replaces (earned bound: src/invalidation/earned.ts); null: as made. */
  settle?: ((req: CanonicalRequest, before: CacheEntry | undefined, after: CacheEntry) => CacheEntry) | null;
}

/** The entry a fetched answer will replace (the memory tier's), read when its lifetime is decided. */
export type Replaced = () => CacheEntry | undefined;

/** Applies the facts an answer showed (the tracker), before its entry is made. */
export type Learn = (facts: ChainFacts) => void;

/**
 * The head an answer is known to show: the higher of its upstream's head when
 * asked and the highest block the answer itself shows, never above the best
 * head when the fetch began. An upstream whose head is unknown (never probed)
 * and an answer that shows none: the best head, as before.
 */
function stampOf(res: UpstreamResponse, shown: number | null, headAtStart: number | null): number | null {
  if (headAtStart === null) return null;
  const reported = res.head ?? null;
  if (reported === null && shown === null) return headAtStart;
  return Math.min(Math.max(reported ?? -1, shown ?? -1), headAtStart);
}

type Accept = (res: UpstreamResponse) => string | ProxyError | null;

/** Stage 1, accept: a good answer (bad ones count against the upstream and are retried elsewhere). */
function goodAnswer(endpoint: EndpointName): Accept {
  return (res) => {
    const problem = answerProblem(endpoint, res.status, res.json, res.body);
    return problem === null ? null : new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: problem });
  };
}

/** Stage 1, accept for a head answer: good, and a head the guard lets through. */
function goodHead(endpoint: EndpointName, guard: HeadGuard): Accept {
  const good = goodAnswer(endpoint);
  return (res) => {
    const bad = good(res);
    if (bad !== null || !isSuccessEnvelope(res.status, res.json)) return bad;
    const h = height(obj(res.json['data'])?.['height']);
    if (h === null) return 'block/max answer without a numeric height';
    const refused = guard.accept(h);
    return refused === null ? null : new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { detail: refused });
  };
}

/** Stage 4, transform: links spliced into success bodies; errors normalized to the envelope. */
function transform(
  req: CanonicalRequest,
  res: UpstreamResponse,
  publicBaseUrl: string,
): { ok: boolean; status: number; body: Buffer } {
  if (isSuccessEnvelope(res.status, res.json))
    return { ok: true, status: res.status, body: rewriteLinks(res.body, req.endpoint.name, publicBaseUrl) };
  return { ok: false, ...normalizeError(res.status, res.json, res.body) };
}

function tagHeaderOf(req: CanonicalRequest, data: unknown): { tagHeader?: string } {
  const m = req.endpoint.module;
  const tags = m === undefined ? [] : headerTags(m.dependsOn, req.params, data);
  return tags.length === 0 ? {} : { tagHeader: tags.join(',') };
}

export class FetchStage {
  readonly #deps: FetchStageDeps;
  readonly #accepts = new Map<EndpointName, Accept>();

  constructor(deps: FetchStageDeps) {
    this.#deps = deps;
  }

  #acceptFor(req: CanonicalRequest): Accept {
    const name = req.endpoint.name;
    let a = this.#accepts.get(name);
    if (a === undefined) {
      a = req.endpoint.module?.reportsHead === true ? goodHead(name, this.#deps.headGuard) : goodAnswer(name);
      this.#accepts.set(name, a);
    }
    return a;
  }

  #classify(req: CanonicalRequest, res: UpstreamResponse): Classification {
    const cls = classify({ req, status: res.status, json: res.json, chain: this.#deps.chain });
    return res.uncovered === true || res.laggingFallback === true ? distrusted(cls, req.endpoint.policy) : cls;
  }

  /**
   * `purpose`: the proxy's own background request (sent upstream as a header); null: a client's miss.
   * `learn`: given the facts the answer showed before the entry's lifetime is decided; null: only returned.
   * `replaced`: the entry the answer will replace, whose evidence earns its bound; null: none (the bound as decided).
   * `extra`: pays for each attempt after the first (the leading client's miss budget); null: free.
   */
  async fetch(
    req: CanonicalRequest,
    signal?: AbortSignal,
    purpose: Purpose | null = null,
    learn: Learn | null = null,
    replaced: Replaced | null = null,
    extra: (() => boolean) | null = null,
  ): Promise<Fetched> {
    const { pool, chain } = this.#deps;
    const headAtStart = chain.bestHead();
    const ask: UpstreamRequest = {
      path: req.upstreamPath,
      endpoint: req.endpoint.name,
      freshness: freshnessOf(req, chain),
      accept: this.#acceptFor(req),
      height: heightOf(req, chain),
      signal,
      purpose,
      extra,
    };
    const first = await pool.fetch(ask);
    // Stage 2, classify: TTLs from the content.
    const firstCls = this.#classify(req, first);
    // Stage 3, agree: a final answer is kept only once several upstreams agree (UPSTREAM_QUORUM).
    const quorum = this.#deps.quorum;
    const settled =
      quorum === null
        ? { res: first, cls: firstCls }
        : await quorum.settle(req, ask, first, firstCls, (r) => this.#classify(req, r));
    learn?.(this.#facts(req, settled.res, settled.cls));
    return this.#build(
      req,
      settled.res,
      settled.cls,
      stampOf(settled.res, settled.cls.observedHead, headAtStart),
      headAtStart,
      replaced,
    );
  }

  /**
   * The final height a stored entry shows (a fleet follower reading the
   * leader's fill learns it as the leader did); null when none or unreadable.
   */
  finalShown(req: CanonicalRequest, entry: CacheEntry): number | null {
    if (entry.status !== 200) return null;
    let json: unknown;
    try {
      json = JSON.parse(entry.body.toString('utf8'));
    } catch {
      return null;
    }
    const body = obj(json);
    return body === null
      ? null
      : classify({ req, status: entry.status, json: body, chain: this.#deps.chain }).observedFinal;
  }

  #facts(req: CanonicalRequest, res: UpstreamResponse, cls: Classification): ChainFacts {
    return {
      head: cls.observedHead,
      final: cls.observedFinal,
      source: res.upstream,
      shown: req.endpoint.module?.reportsHead !== true,
    };
  }

  /**
   * A head probe's answer taken as the answer to `req` (the head endpoint)
   * fetched at head `head`, or null when it is not a good head answer (the
   * same checks as a fetched one, the head guard's included).
   */
  adopt(req: CanonicalRequest, res: UpstreamResponse, head: number): Fetched | null {
    if (this.#acceptFor(req)(res) !== null) return null;
    return this.#build(req, res, this.#classify(req, res), head, head, null);
  }

  /**
   * The stored answer's one lifetime decision: what keeps it (the precise
   * rule), then the bound the entry it replaces earned it.
   * `stamp`: the head the answer is known to show; `best`: the best head when the fetch began.
   */
  #build(
    req: CanonicalRequest,
    res: UpstreamResponse,
    settledCls: Classification,
    stamp: number | null,
    best: number | null,
    replaced: Replaced | null,
  ): Fetched {
    const { chain, publicBaseUrl, clock } = this.#deps;
    const precise = this.#deps.precise ?? null;
    // What keeps the answer (the precise rule's one decision), turned into its timing by the lifetime module.
    const keeping =
      precise === null ? OWN_RULE : precise.decide(req, settledCls, obj(res.json)?.['data'], chain.finalHeight());
    const { cls, deps } = keptBy(settledCls, keeping);
    // Kept by the head or by tags, an answer from an upstream behind the best head is kept only until the block it
    // lacks.
    if (
      cls.cacheable &&
      stamp !== null &&
      best !== null &&
      stamp < best &&
      (cls.headDependent || (deps?.tags.length ?? 0) > 0)
    )
      this.#deps.guarded?.('behind-upstream');

    const { ok, status, body } = transform(req, res, publicBaseUrl);

    const made = createEntry({
      key: req.key,
      status,
      body,
      createdAt: clock(),
      ttlMs: cls.ttlMs,
      swrMs: cls.swrMs,
      sieMs: cls.sieMs,
      head: stamp,
      headDependent: cls.headDependent,
      finalAt: cls.finalAt,
      negative: cls.negative,
      stamps: ok ? findStamps(body, req.endpoint.name) : [],
      ...(deps !== undefined ? { deps } : {}),
      ...(this.#deps.tagHeaders === true && cls.cacheable ? tagHeaderOf(req, obj(res.json)?.['data']) : {}),
    });
    const settle = this.#deps.settle ?? null;
    const entry = settle === null || replaced === null || !cls.cacheable ? made : settle(req, replaced(), made);
    return {
      entry,
      cacheable: cls.cacheable,
      upstream: res.upstream,
      upstreamMs: res.durationMs,
      facts: this.#facts(req, res, cls),
    };
  }
}
