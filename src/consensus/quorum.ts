/**
 * Agreement before an answer is kept as final. An answer that would be stored
 * with the endpoint's final (long) TTL is first confirmed by `quorum` distinct
 * upstreams returning the same content hash (content-hash.ts, the fields of
 * compared.ts left out). The first answer is one ballot; the others are
 * asked in parallel, each upstream once (retries and hedges of the first
 * answer never add a ballot: one ballot per upstream name). On disagreement
 * every other eligible upstream is asked once, then:
 *
 * - a majority (more than half of those that answered, at least `quorum`):
 *   its version is served and kept final; the minority earns a strike
 *   (misbehaviour.ts); the dispute is counted and logged;
 * - no majority: the first answer is served with the volatile TTL and no
 *   stale windows; the dispute is counted and logged;
 * - too few answers (upstreams down, benched or too few configured): served
 *   short-lived, no dispute.
 *
 * With a quorum, an answer not final yet is never promoted to the final TTL
 * later (finalAt dropped): it expires and the refetch, once final, is voted.
 * Only compulsory misses of final data pay the extra requests; hits are never
 * touched. In a fleet this runs inside the fetch, so under the lease: once.
 */
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { Classification } from '../endpoints/types.js';
import { isFinalContent } from '../cache/lifetime.js';
import { distrusted } from '../catalogue/classify.js';
import type { UpstreamPool, UpstreamRequest, UpstreamResponse } from '../upstream/types.js';
import { VOTED } from './compared.js';
import { contentHash } from './content-hash.js';
import type { DisputeLog } from './dispute-log.js';
import type { ConsensusMetrics } from './metrics.js';
import type { Misbehaviour } from './misbehaviour.js';
import { tally, type Ballot, type Tally, type Version } from './tally.js';

export interface QuorumOptions {
  /** Distinct upstreams that must agree (at least 2; 1 means no vote: do not build a Quorum). */
  quorum: number;
  pool: UpstreamPool;
  log: DisputeLog;
  misbehaviour: Misbehaviour;
  metrics: ConsensusMetrics;
  logger: Logger;
  clock: () => number;
}

export interface Settled {
  res: UpstreamResponse;
  cls: Classification;
}

/** Whether the classification keeps the answer as final content (the lifetime module's one test). */
function keptFinal(req: CanonicalRequest, cls: Classification): boolean {
  return cls.cacheable && isFinalContent(cls, req.endpoint.policy, req.endpoint.module?.finalCapable === true);
}

export class Quorum {
  readonly #o: QuorumOptions;

  constructor(o: QuorumOptions) {
    this.#o = o;
  }

  get quorum(): number {
    return this.#o.quorum;
  }

  /**
   * The answer to keep, and how long: `first` (classified `cls`) unless it
   * would be final and the vote says otherwise. `ask` is the request the
   * ballots repeat; `reclassify` classifies another upstream's answer.
   */
  async settle(
    req: CanonicalRequest,
    ask: UpstreamRequest,
    first: UpstreamResponse,
    cls: Classification,
    reclassify: (res: UpstreamResponse) => Classification,
  ): Promise<Settled> {
    const module = req.endpoint.module;
    const ignored = module === undefined ? undefined : VOTED.get(module);
    if (ignored === undefined) return { res: first, cls };
    if (!keptFinal(req, cls)) return { res: first, cls: cls.finalAt === null ? cls : { ...cls, finalAt: null } };

    const answers = new Map<string, UpstreamResponse>([[first.upstream, first]]);
    const ballots: Ballot[] = [{ upstream: first.upstream, hash: contentHash(first.json, ignored) }];
    const asked = [first.upstream];
    let t = tally(ballots, this.#o.quorum);
    while (t.kind === 'short' || t.kind === 'disputed') {
      const support = t.kind === 'short' ? (t.versions[0]?.upstreams.length ?? 0) : 0;
      const count = t.kind === 'short' ? this.#o.quorum - support : this.#o.pool.status().length;
      const got = await this.#o.pool.ballots(ask, asked, count);
      if (got.asked.length === 0) break;
      asked.push(...got.asked);
      for (const a of got.answers) {
        if (answers.has(a.upstream)) continue;
        answers.set(a.upstream, a);
        ballots.push({ upstream: a.upstream, hash: contentHash(a.json, ignored) });
      }
      t = tally(ballots, this.#o.quorum);
    }
    return this.#decide(req, t, first, cls, answers, reclassify);
  }

  #decide(
    req: CanonicalRequest,
    t: Tally,
    first: UpstreamResponse,
    cls: Classification,
    answers: ReadonlyMap<string, UpstreamResponse>,
    reclassify: (res: UpstreamResponse) => Classification,
  ): Settled {
    const endpoint = req.endpoint.name;
    const { metrics } = this.#o;
    metrics.vote(endpoint, t.kind);
    switch (t.kind) {
      case 'agreed':
        return { res: first, cls };
      case 'majority': {
        this.#dispute(req, 'majority', t.versions);
        for (const v of t.versions)
          if (v !== t.winner) for (const u of v.upstreams) this.#o.misbehaviour.minority(u, req.key);
        if (t.winner.upstreams.includes(first.upstream)) return { res: first, cls };
        const res = answers.get(t.winner.upstreams[0]!)!;
        return { res, cls: reclassify(res) };
      }
      case 'disputed':
        this.#dispute(req, 'unresolved', t.versions);
        return { res: first, cls: distrusted(cls, req.endpoint.policy) };
      case 'short':
        return { res: first, cls: distrusted(cls, req.endpoint.policy) };
    }
  }

  #dispute(req: CanonicalRequest, outcome: 'majority' | 'unresolved', versions: Version[]): void {
    this.#o.log.append({ at: this.#o.clock(), key: req.key, endpoint: req.endpoint.name, outcome, versions });
    this.#o.logger.warn({ key: req.key, outcome, versions }, 'upstreams disagree on a final answer');
  }

  /** What /status shows. */
  snapshot(): Record<string, unknown> {
    return { quorum: this.#o.quorum, disputes: this.#o.log.total, recent: this.#o.log.recent() };
  }
}
