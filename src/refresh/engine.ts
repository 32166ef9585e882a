/**
 * The one refresh engine: hot entries are fetched again before clients ask,
 * on two triggers, from one score board (board.ts):
 *
 * - a new head: the hottest head pages not already current, then the extra
 *   targets (an aggregate page's recompose, `addTarget`). Heads arriving while
 *   a round runs are coalesced into the next round; `head()` resolves once the
 *   round covering that head is done (the head stream sends its event then).
 * - a complete touched set: the hottest invalidated tag-kept entries whose
 *   tags the block names.
 *
 * Each refetch joins a flight under way (the resolver's single flight, and
 * the fleet's lease). Rounds run only while this replica acts for the fleet
 * (the leader, or a replica alone); the scores age on every trigger either
 * way, so a replica that takes over ranks by recent traffic. `onRefreshed`
 * gets, once per round, the entries the round stored in every tier.
 */
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { CacheEntry } from '../cache/types.js';
import type { TouchedSet } from '../chain/touched.js';
import { toProxyError } from '../errors/catalog.js';
import { DEPLOYED, tagOfAddress, tagOfToken } from '../invalidation/tags.js';
import type { HotBoard } from './board.js';

/** Something to rebuild on every new head, besides the hot cache entries. */
export interface RefreshTarget {
  readonly name: string;
  refresh(head: number): Promise<unknown>;
}

type Outcome = 'ok' | 'error';

export interface RefreshDeps {
  board: HotBoard;
  /**
   * Fetches the key again (joining a flight under way) and stores it: the entry kept in every tier, or null (not kept).
   */
  renew(req: CanonicalRequest): Promise<CacheEntry | null>;
  /** The key's entry is fresh and fetched at the new head already (the head entry a probe answer became). */
  current(req: CanonicalRequest): boolean;
  /** This replica does the fleet's background work now (the leader, or alone); null: no fleet, always. */
  acting: (() => boolean) | null;
  /** Keys refreshed per round (0: none). */
  maxKeys: number;
  /** Counts each refresh of a head round (targets included), and of a touched round. */
  counted: { head(outcome: Outcome): void; touched(outcome: Outcome): void };
  /** The entries a round stored (once per round that stored any); null: nobody listens. */
  onRefreshed: ((entries: CacheEntry[]) => void) | null;
  logger: Logger;
}

export class RefreshEngine {
  readonly #d: RefreshDeps;
  readonly #targets: RefreshTarget[] = [];
  /** Highest head a round was asked for (null: none since the last rebase). */
  #asked: number | null = null;
  /** The round waiting behind the running one (it takes the highest head asked when it starts). */
  #queued: Promise<void> | null = null;
  #tail: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(deps: RefreshDeps) {
    this.#d = deps;
  }

  addTarget(target: RefreshTarget): void {
    this.#targets.push(target);
  }

  /** A new head: resolves once the round covering `head` is done; never rejects. */
  head(head: number): Promise<void> {
    if (this.#asked !== null && head <= this.#asked) return this.#tail;
    this.#asked = head;
    if (this.#queued !== null) return this.#queued;
    const round = this.#tail
      .then(() => {
        this.#queued = null;
        return this.#headRound(this.#asked ?? head);
      })
      // A round that threw must not stop the rounds after it.
      .catch((err: unknown) => this.#d.logger.error({ err: toProxyError(err).message }, 'refresh round failed'));
    this.#queued = round;
    this.#tail = round;
    return round;
  }

  /** The head was lowered to `height` (or the blocks above it rewritten): the real head gets a round again. */
  rebase(height: number): void {
    if (this.#asked !== null && this.#asked > height) this.#asked = null;
  }

  /** A touched set: refreshes the hot invalidated entries it names; resolves once done, never rejects. */
  async block(set: TouchedSet): Promise<void> {
    const d = this.#d;
    if (this.#closed || d.maxKeys <= 0 || !set.complete) return;
    const named = new Set<string>([
      ...set.addresses.map(tagOfAddress),
      ...set.contracts.map(tagOfAddress),
      ...set.tokens.map(tagOfToken),
    ]);
    if (set.deployed.length > 0) named.add(DEPLOYED);
    const due = d.board.named(named, this.#acting() ? d.maxKeys : 0);
    await this.#renewAll(due, d.counted.touched, 'refresh-ahead of an invalidated entry failed');
  }

  /** No round starts after this (shutdown). */
  close(): void {
    this.#closed = true;
  }

  #acting(): boolean {
    return this.#d.acting?.() !== false;
  }

  async #headRound(head: number): Promise<void> {
    const d = this.#d;
    if (this.#closed) return;
    const acting = this.#acting();
    const keys = d.board.headPages(acting ? d.maxKeys : 0).filter((req) => !d.current(req));
    if (!acting) return;
    await this.#renewAll(keys, d.counted.head, 'refresh-ahead failed');
    await Promise.all(
      this.#targets.map(async (t) => {
        try {
          await t.refresh(head);
          d.counted.head('ok');
        } catch (err) {
          this.#failed(t.name, err, d.counted.head, 'refresh-ahead failed');
        }
      }),
    );
  }

  /** Renews every key, then tells `onRefreshed` what was kept. */
  async #renewAll(keys: readonly CanonicalRequest[], count: (o: Outcome) => void, failure: string): Promise<void> {
    const d = this.#d;
    const kept: CacheEntry[] = [];
    await Promise.all(
      keys.map(async (req) => {
        try {
          const entry = await d.renew(req);
          if (entry !== null) kept.push(entry);
          count('ok');
        } catch (err) {
          this.#failed(req.key, err, count, failure);
        }
      }),
    );
    if (kept.length === 0 || d.onRefreshed === null) return;
    try {
      d.onRefreshed(kept);
    } catch (err) {
      d.logger.warn({ err: toProxyError(err).message }, 'refreshed entries not handed on');
    }
  }

  #failed(name: string, err: unknown, count: (o: Outcome) => void, message: string): void {
    count('error');
    this.#d.logger.warn({ key: name, err: toProxyError(err).message }, message);
  }
}
