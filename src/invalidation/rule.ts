/**
 * Precise invalidation at store time: what keeps an answer is its endpoint
 * module's rule (`decide` in src/endpoints/*.ts: the dependencies that apply,
 * and which bound), given what the block reader knows (`ReaderFacts`). Here
 * only what holds for every endpoint: an answer whose applicable dependencies
 * are all tags (addresses, contracts, tokens, deployments, the polled pending
 * pool, a block's finality, a stage's end height) is no longer dropped on every
 * block; it stays fresh until a touched set names one of its tags, at most its
 * endpoint's safety max-age for what the API cannot show
 * (INVALIDATION_MAX_AGE_MS; INVALIDATION_LIST_MAX_AGE_MS when a block names
 * every change, which only a missed read could leave behind;
 * invalidation.maxAgeByEndpoint). An answer the reader tells every change of
 * (about one block, which only its finality or a new hash changes, or a
 * pending transaction, which only its leaving the pool changes) is kept as long
 * as a final answer. An answer about a block above the trusted head is never
 * kept by tags (the head rule and its volatile TTL).
 * The rule states what keeps the answer (a `Keeping`); the lifetime module
 * (src/cache/lifetime.ts, `keptBy`) turns it into the entry's timing.
 */
import { aboveHead } from '../catalogue/classify.js';
import { OWN_RULE, type Keeping } from '../cache/lifetime.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import { livesOf } from '../endpoints/kit.js';
import type { Classification, ReaderFacts } from '../endpoints/types.js';
import type { ChainView } from '../chain/types.js';
import type { InvalidationConfig } from '../config/types.js';
import type { GuardReason } from './metrics.js';
import { dependsOnHead, entryDeps } from './tags.js';

const HEAD_RULE: Keeping = { kind: 'head' };

export class PreciseRule {
  readonly #cfg: InvalidationConfig;
  readonly #chain: ChainView;
  readonly #guarded: (reason: GuardReason) => void;
  readonly #reader: ReaderFacts;

  /**
   * `hashOf`: the hash the block reader knows a height by (the tag clock's);
   * `inPool`: the reader saw that transaction in the pool and not leave it (pool-view.ts).
   */
  constructor(
    cfg: InvalidationConfig,
    chain: ChainView,
    guarded: (reason: GuardReason) => void,
    hashOf: (height: number) => string | undefined,
    inPool: (hash: string) => boolean,
  ) {
    this.#cfg = cfg;
    this.#chain = chain;
    this.#guarded = guarded;
    this.#reader = { pendingPolled: cfg.pendingPollMs > 0, hashOf, inPool };
  }

  /**
   * The safety bound of a tag-kept entry of this endpoint; `named`:
   * every change of it is named by a block (or its finality).
   */
  maxAgeMs(endpoint: string, named: boolean): number {
    return this.#cfg.maxAgeByEndpoint[endpoint] ?? (named ? this.#cfg.listMaxAgeMs : this.#cfg.maxAgeMs);
  }

  /** What keeps the answer classified `cls`; `data`: the envelope's data; `final`: the chain's final height. */
  decide(req: CanonicalRequest, cls: Classification, data: unknown, final: number | null): Keeping {
    const m = req.endpoint.module;
    if (m === undefined || !cls.cacheable || cls.negative) return OWN_RULE;
    // About a block the proxy does not believe yet: classify made it head-dependent and short.
    if (aboveHead(req, data, this.#chain)) {
      this.#guarded('future-height');
      return OWN_RULE;
    }
    const input = { params: req.params, data, policy: req.endpoint.policy, chain: this.#chain, reader: this.#reader };
    const keep = livesOf(m, input).keep;
    if (keep.by === 'own') return OWN_RULE;
    const deps = entryDeps(keep.on, req.params, data, final, this.#reader.pendingPolled);
    // Global lists and statistics move with every block (holders, contracts, summaries), whatever their TTL;
    // the head itself (block/max) keeps its own rule.
    if (deps === null)
      return !cls.headDependent && !m.reportsHead && dependsOnHead(keep.on, req.params) ? HEAD_RULE : OWN_RULE;
    // A finality watch alone keeps it longer only while the final height is tracked (the reader's block list teaches it
    // each block).
    if (deps.tags.length === 0 && deps.watchFinal !== null && final === null) return { kind: 'watch', deps };
    // Only its block's finality or hash changes an answer about one block (a block's record or list): the reader
    // tells it, so it is kept as long as a final answer (no safety bound cuts it first).
    const told = keep.bound === 'told' || (deps.watchHead === undefined && deps.tags.length === 0);
    const name = req.endpoint.name;
    const boundMs = told
      ? (this.#cfg.maxAgeByEndpoint[name] ?? req.endpoint.policy.finalTtlMs)
      : this.maxAgeMs(name, keep.bound === 'list');
    return { kind: 'tags', deps, boundMs };
  }
}
