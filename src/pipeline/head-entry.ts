/**
 * The head endpoint's cache entry (block/max) kept by the probes, so clients
 * polling the head neither miss nor refetch it:
 *
 * - a probe answer showing a new head that the tracker will believe becomes
 *   the entry (fetched at that head) before the tracker hears of it, so the
 *   head event's refresh-ahead finds it current and clients hit it at once;
 * - a probe answer showing the believed head again renews the entry fetched
 *   at that head (its windows start again from now; memory tier only, same
 *   body and ETag), so its short TTL does not send clients to refetch it;
 * - on a follower, the fleet leader's probe answer (shared on the bus) showing
 *   a head this replica believes, above its entry's, becomes the entry in
 *   memory (the leader stored it in the shared tier), so every replica serves
 *   the new head when the leader does.
 */
import type { CanonicalRequest } from '../catalogue/types.js';
import type { ChainView } from '../chain/types.js';
import { renewed } from '../cache/lifetime.js';
import type { CacheEntry } from '../cache/types.js';
import type { MemoryStore } from '../cache/memory-store.js';
import type { UpstreamResponse } from '../upstream/types.js';
import type { FetchStage } from './fetch-stage.js';

export interface HeadEntryDeps {
  /** The head endpoint's request (no parameters). */
  req: CanonicalRequest;
  memory: MemoryStore;
  fetcher: FetchStage;
  chain: ChainView;
  clock: () => number;
  /** Stores an entry in every tier (Resolver.keep). */
  keep: (entry: CacheEntry) => void;
}

export class HeadEntry {
  readonly #d: HeadEntryDeps;

  constructor(deps: HeadEntryDeps) {
    this.#d = deps;
  }

  /**
   * A probe's answer `res` showing `head`, above the believed head; false when it is not a good, storable head answer.
   */
  readonly adopt = (res: UpstreamResponse, head: number): boolean => {
    const f = this.#d.fetcher.adopt(this.#d.req, res, head);
    if (f === null || !f.cacheable) return false;
    this.#d.keep(f.entry);
    return true;
  };

  /** The leader's probe answer `res` showing `head`, on a follower. */
  readonly install = (res: UpstreamResponse, head: number): void => {
    const { memory, chain, req } = this.#d;
    const best = chain.bestHead();
    if (best === null || head > best) return;
    const e = memory.peek(req.key)?.entry;
    if (e !== undefined && !e.negative && e.head !== null && e.head >= head) return;
    const f = this.#d.fetcher.adopt(req, res, head);
    if (f !== null && f.cacheable) memory.put(f.entry);
  };

  /** A probe showed the believed head `head` again. */
  readonly renew = (head: number): void => {
    const { memory, chain, clock, req } = this.#d;
    const e = memory.peek(req.key)?.entry;
    if (e === undefined || e.negative || e.head !== head || chain.bestHead() !== head) return;
    const again = renewed(e, clock());
    if (again !== null) memory.put(again);
  };
}
