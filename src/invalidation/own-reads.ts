/**
 * The block reader's own upstream reads, around the client cache: each read
 * is a fetch (the fetch stage: the pool's selection, the good-answer checks,
 * the classification), single-flighted among the reader's reads only. It is
 * never answered from an entry a client request made, nor joined to a
 * client's flight. The facts an answer shows are applied (the tracker), and
 * a reading the reader verified may be stored for clients (`keep`), never
 * read back. A cross-check asks other upstreams one attempt each, through the
 * pool's ballots (as the quorum does), and can pin the rest of a reading to
 * the upstream that answered. A read shed by the pool (its queues full) is
 * tried again after a pause, while the read's time lasts: the reader's reads
 * keep every tag-kept entry precise, so they wait rather than fail the block.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import { freshnessOf, heightOf } from '../catalogue/classify.js';
import type { ChainFacts, ChainFeedback, ChainView } from '../chain/types.js';
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { MemoryStore } from '../cache/memory-store.js';
import { ProxyError } from '../errors/catalog.js';
import type { Purpose, UpstreamPool, UpstreamRequest, UpstreamResponse } from '../upstream/types.js';

/** First pause after a shed read; it doubles up to a second. */
const SHED_PAUSE_MS = 50;

/** One answer fetched and classified (the fetch stage makes it: src/pipeline/fetch-stage.ts). */
export interface Fetched {
  entry: CacheEntry;
  cacheable: boolean;
  upstream: string;
  upstreamMs: number;
  /** What the answer showed about the chain (given to `learn` before the entry was made). */
  facts: ChainFacts;
}

export interface OwnReadsDeps {
  /** One fetch through the pool (retries, hedges), classified: the fetch stage's. */
  fetch(req: CanonicalRequest, signal: AbortSignal, purpose: Purpose): Promise<Fetched>;
  /** An upstream's answer taken as the answer to `req` fetched at `head`, or null when it is not a good answer. */
  adopt(req: CanonicalRequest, res: UpstreamResponse, head: number): Fetched | null;
  pool: Pick<UpstreamPool, 'ballots' | 'status'>;
  chain: ChainView & ChainFeedback;
  /** Stores a verified answer for clients (memory, and the shared tier awaited). */
  store(entry: CacheEntry): Promise<void>;
}

export class OwnReads {
  readonly #d: OwnReadsDeps;
  readonly #flights = new Map<string, Promise<Fetched>>();

  constructor(deps: OwnReadsDeps) {
    this.#d = deps;
  }

  /** Fetched from the upstream now; a read of the same key under way is joined. */
  read(req: CanonicalRequest, signal: AbortSignal, purpose: Purpose): Promise<Fetched> {
    const running = this.#flights.get(req.key);
    if (running !== undefined) return running;
    const p = this.#fetch(req, signal, purpose)
      .then((f) => {
        this.#d.chain.apply(f.facts);
        return f;
      })
      .finally(() => this.#flights.delete(req.key));
    this.#flights.set(req.key, p);
    return p;
  }

  async #fetch(req: CanonicalRequest, signal: AbortSignal, purpose: Purpose): Promise<Fetched> {
    for (let pause = SHED_PAUSE_MS; ; pause = Math.min(2 * pause, 1000)) {
      try {
        return await this.#d.fetch(req, signal, purpose);
      } catch (err) {
        if (!(err instanceof ProxyError) || err.kind !== 'UPSTREAM_OVERLOADED' || signal.aborted) throw err;
        await sleep(pause, undefined, { signal });
      }
    }
  }

  /**
   * One attempt on an eligible upstream not in `exclude` (healthy, fresh,
   * covering the height, not benched), or on `only` when given; null when none
   * can take it or its answer is not good.
   */
  async readFrom(
    req: CanonicalRequest,
    signal: AbortSignal,
    purpose: Purpose,
    exclude: readonly string[],
    only: string | null = null,
  ): Promise<Fetched | null> {
    const { chain, pool } = this.#d;
    const ask: UpstreamRequest = {
      path: req.upstreamPath,
      endpoint: req.endpoint.name,
      freshness: freshnessOf(req, chain),
      height: heightOf(req, chain),
      signal,
      purpose,
    };
    const skip =
      only === null
        ? exclude
        : pool
            .status()
            .map((u) => u.name)
            .filter((n) => n !== only);
    let res: UpstreamResponse | undefined;
    try {
      res = (await pool.ballots(ask, skip, 1)).answers[0];
    } catch {
      return null;
    }
    const head = chain.bestHead();
    if (res === undefined || head === null) return null;
    const f = this.#d.adopt(req, res, head);
    if (f !== null) chain.apply(f.facts);
    return f;
  }

  /** Stores the cacheable answers of a verified reading for clients. */
  async keep(reads: readonly Fetched[]): Promise<void> {
    await Promise.all(reads.filter((f) => f.cacheable).map((f) => this.#d.store(f.entry)));
  }
}

/**
 * How the reader stores a verified answer for clients: in memory unless an
 * entry fetched later is there, then in the shared tier (awaited, so a replica
 * told of the block on the bus finds it; a failed write is only logged).
 */
export function storeFor(
  memory: Pick<MemoryStore, 'peek' | 'put'>,
  second: CacheStore | null,
  logger: Logger,
): (entry: CacheEntry) => Promise<void> {
  return async (entry) => {
    const held = memory.peek(entry.key)?.entry;
    if (held !== undefined && held.createdAt > entry.createdAt) return;
    memory.put(entry);
    try {
      await second?.set(entry);
    } catch (err) {
      logger.warn(
        { key: entry.key, err: err instanceof Error ? err.message : String(err) },
        'second-tier write of a block read failed',
      );
    }
  };
}
