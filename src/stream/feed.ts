/**
 * The head pipeline: on every advance of the best head (probes, data, the
 * fleet bus), the refresh engine's round for it first, then one head event per new height, each
 * carrying that height's `block/list` record. Heads are handled one step at a
 * time; heads that arrive during a step are coalesced into the next one, so the
 * upstream work per head is constant whatever the number of subscribers.
 *
 * A rebase (the tracker lowered the head) drops what was made above the new
 * head, tells subscribers that got it (a `rebase` event), and the feed goes on
 * from there; a step running across a rebase publishes nothing. No event is
 * made for a height above the head the tracker believes. A block the reader
 * read with another hash than the event made for its height (a reorg) is a
 * rebase below that height: the events from there on are made again.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { CacheEntry } from '../cache/types.js';
import { toProxyError } from '../errors/catalog.js';
import type { RefreshEngine } from '../refresh/engine.js';
import { blockPage, type BlockPage } from './blocks.js';
import { eventFrame, gapFrame, rebaseFrame } from './frames.js';
import type { StreamEvent } from './history.js';

/** Page size of the block/list page read for the records (the API's default, so it shares the hot entry). */
const PAGE_SIZE = 20;
/** Hashes of the newest events remembered (a reorg deeper than this is not followed). */
const HASHES = 256;

export interface FeedDeps {
  tracker: ChainTracker;
  /** The round of each head is awaited before its event; a rebase asks for the real head's round again. */
  refresh: Pick<RefreshEngine, 'head' | 'rebase'>;
  blockList: EndpointDef;
  limits: ParamLimits;
  resolve(req: CanonicalRequest): Promise<{ entry: CacheEntry }>;
  revalidate(req: CanonicalRequest): Promise<CacheEntry>;
  publish(e: StreamEvent): void;
  /** The latest event kept once events above `height` are dropped. */
  rebase(height: number, from: number, frame: Buffer): StreamEvent | undefined;
  clock: () => number;
  logger: Logger;
}

/** `emitted`: the height of the last event published changed (tests await it). */
interface HeadFeedEvents {
  emitted: [height: number | null];
}

export class HeadFeed extends EventEmitter<HeadFeedEvents> {
  readonly #d: FeedDeps;
  #emitted: number | null = null;
  /** `block_hash` of the records of the events made, by height (the newest HASHES). */
  readonly #hashes = new Map<number, string>();
  /** Events are made once the stream has had a subscriber (a replica nobody streams from does no extra work). */
  #streaming = false;
  #running: Promise<void> | null = null;
  #again = false;
  #closed = false;
  /** Bumped on every rebase: a step that saw another value publishes nothing. */
  #epoch = 0;
  readonly #onHead = (): void => this.kick();
  readonly #onRebase = (height: number, from: number): void => this.#rebase(height, from);

  constructor(deps: FeedDeps) {
    super();
    this.#d = deps;
    deps.tracker.on('head', this.#onHead);
    deps.tracker.on('rebase', this.#onRebase);
  }

  /** Height of the last event published, or null. */
  get emitted(): number | null {
    return this.#emitted;
  }

  /** From now on, make events (the first one for the current head). */
  startStreaming(): void {
    if (this.#streaming) return;
    this.#streaming = true;
    this.kick();
  }

  /** Starts a step, or asks the running one for another pass. */
  kick(): void {
    if (this.#closed) return;
    if (this.#running !== null) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = null;
    });
  }

  close(): void {
    this.#closed = true;
    this.#d.tracker.off('head', this.#onHead);
    this.#d.tracker.off('rebase', this.#onRebase);
  }

  /** Block `height` was read with `hash`: when its event carried another, the events from it on are made again. */
  rewritten(height: number, hash: string): void {
    const emitted = this.#emitted;
    const seen = this.#hashes.get(height);
    if (emitted === null || height > emitted || seen === undefined || hash === '' || seen === hash) return;
    this.#d.logger.warn({ height, from: seen, to: hash }, 'head feed: block replaced, its events made again');
    this.#rebase(height - 1, emitted);
  }

  #rebase(height: number, from: number): void {
    this.#epoch++;
    // Refresh-ahead runs again for the real head (and every head after it).
    this.#d.refresh.rebase(height);
    if (this.#emitted !== null && this.#emitted > height) {
      const kept = this.#d.rebase(
        height,
        from,
        rebaseFrame(height, from, this.#d.tracker.finalHeight(), this.#d.clock()),
      );
      // Heights up to the real head not kept are made again (the newest one at least).
      this.#emitted = kept?.height ?? null;
      this.emit('emitted', this.#emitted);
    }
    this.kick();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#step();
      } catch (err) {
        this.#d.logger.error({ err: toProxyError(err).message }, 'head feed step failed');
      }
    } while (this.#again && !this.#closed);
  }

  async #step(): Promise<void> {
    const head = this.#d.tracker.bestHead();
    if (head === null) return;
    const epoch = this.#epoch;
    await this.#d.refresh.head(head);
    if (!this.#streaming || this.#closed || (this.#emitted !== null && head <= this.#emitted)) return;
    const maxPage = Math.min(this.#d.limits.maxPageSize, 100);
    const from = this.#emitted === null ? head : Math.max(this.#emitted + 1, head - maxPage + 1);
    const page = await this.#blocks(head, Math.min(maxPage, Math.max(PAGE_SIZE, head - from + 1)));
    // A rebase while the page was read: this step's heights may not be believed any more.
    if (epoch !== this.#epoch || this.#closed) {
      this.#again = true;
      return;
    }
    const final = Math.max(this.#d.tracker.finalHeight() ?? -1, page.final ?? -1);
    const time = this.#d.clock();
    // Heights skipped by a jump are named (the same `gap` event a resume from before the history gets).
    if (this.#emitted !== null && from > this.#emitted + 1)
      this.#d.publish({ height: from - 1, frame: gapFrame(this.#emitted + 1, from - 1), marker: true });
    for (let h = from; h <= head; h++) {
      const block = page.records.get(h);
      const blockJson = block === undefined ? 'null' : block.toString('utf8');
      const json = `{"height":${h},"final_height":${final < 0 ? 'null' : final},"time":${time},"block":${blockJson}}`;
      this.#d.publish({ height: h, frame: eventFrame(h, json) });
      const hash = page.hashes.get(h);
      if (hash === undefined) this.#hashes.delete(h);
      else this.#hashes.set(h, hash);
    }
    for (const h of this.#hashes.keys()) {
      if (this.#hashes.size <= HASHES) break;
      this.#hashes.delete(h);
    }
    this.#emitted = head;
    this.emit('emitted', head);
  }

  /** The newest `size` block records; fetched again once when the page ends below `head` (a lagging answer). */
  async #blocks(head: number, size: number): Promise<BlockPage> {
    const req = canonicalize(this.#d.blockList, `page=1&page_size=${size}`, this.#d.limits);
    try {
      const page = blockPage((await this.#d.resolve(req)).entry.body);
      if (page.records.has(head)) return page;
      return blockPage((await this.#d.revalidate(req)).body);
    } catch (err) {
      this.#d.logger.warn({ err: toProxyError(err).message, head }, 'head feed: block records unavailable');
      return { records: new Map(), hashes: new Map(), final: null };
    }
  }
}
