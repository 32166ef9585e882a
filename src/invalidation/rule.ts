/**
 * Precise invalidation at store time: an answer whose dependencies are all
 * tags (addresses, contracts, tokens, deployments, the polled pending pool,
 * a block's finality, a stage's end height) is no longer
 * dropped on every block; it stays fresh until a touched set names one of its
 * tags, at most its endpoint's safety max-age for what the API cannot show
 * (INVALIDATION_MAX_AGE_MS; INVALIDATION_LIST_MAX_AGE_MS for transaction
 * lists, which only a missed read could leave behind;
 * invalidation.maxAgeByEndpoint). An answer about one block, which only its
 * finality or a new hash changes, and a pending transaction, which only its
 * leaving the pool changes, are kept as long as a final answer. An answer
 * about a block above the trusted head is never kept by tags (the head rule
 * and its volatile TTL).
 * The rule states what keeps the answer (a `Keeping`); the lifetime module
 * (src/cache/lifetime.ts, `keptBy`) turns it into the entry's timing.
 */
import { aboveHead, byHash } from '../catalogue/classify.js';
import { OWN_RULE, type Keeping } from '../cache/lifetime.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { Classification } from '../endpoints/types.js';
import type { ChainView } from '../chain/types.js';
import type { InvalidationConfig } from '../config/types.js';
import type { GuardReason } from './metrics.js';
import { dependsOnHead, entryDeps, isTxTag } from './tags.js';

const HEAD_RULE: Keeping = { kind: 'head' };

export class PreciseRule {
  readonly #cfg: InvalidationConfig;
  readonly #chain: ChainView;
  readonly #guarded: (reason: GuardReason) => void;
  readonly #hashOf: (height: number) => string | undefined;
  readonly #inPool: (hash: string) => boolean;

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
    this.#hashOf = hashOf;
    this.#inPool = inPool;
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
    const deps = entryDeps(m.dependsOn, req.params, data, final, this.#cfg.pendingPollMs > 0);
    // Global lists and statistics move with every block (holders, contracts, summaries), whatever their TTL;
    // the head itself (block/max) keeps its own rule.
    if (deps === null)
      return !cls.headDependent && !m.reportsHead && dependsOnHead(m.dependsOn, req.params) ? HEAD_RULE : OWN_RULE;
    // A finality watch alone keeps it longer only while the final height is tracked (the reader's block list teaches it
    // each block).
    if (deps.tags.length === 0 && deps.watchFinal !== null && final === null) return { kind: 'watch', deps };
    // A block named by its hash: kept by its height's watch only when the reader knows that height by that hash.
    if (byHash(req) && !this.#knownAs(deps.watchFinal, data)) return OWN_RULE;
    // A pending transaction: by its own tag only while the reader would see it leave the pool.
    if (deps.tags.some((t) => isTxTag(t) && !this.#inPool(t.slice(3)))) return OWN_RULE;
    // Only its block's finality or hash changes an answer about one block (a mined transaction, a block's record or
    // list), and only its leaving the pool a pending transaction: the reader tells both, so it is kept as long as a
    // final answer (no safety bound cuts it first).
    const oneBlock = deps.watchHead === undefined && deps.tags.every(isTxTag);
    const name = req.endpoint.name;
    const boundMs = oneBlock
      ? (this.#cfg.maxAgeByEndpoint[name] ?? req.endpoint.policy.finalTtlMs)
      : this.maxAgeMs(name, m.everyChangeNamed);
    return { kind: 'tags', deps, boundMs };
  }

  /** The block record `data` has the hash the reader knows height `h` by (null `h`: final, nothing to watch). */
  #knownAs(h: number | null, data: unknown): boolean {
    if (h === null) return true;
    const hash =
      typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['block_hash'] : undefined;
    return typeof hash === 'string' && hash !== '' && this.#hashOf(h) === hash;
  }
}
