/**
 * The aggregation layer: validated page requests, the cache of composed
 * pages (memory, LRU bounded in bytes), one composition in flight per page
 * key, and background recomposition (`refresh`).
 *
 * A composed page is keyed by page and canonical parameters and holds the
 * versions of its parts (its ETag); it stays fresh until its first part
 * expires or, when head-relative, until the best head moves. A fresh one is
 * served synchronously (`hit`), like a single cache hit.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import { toProxyError } from '../errors/catalog.js';
import { SingleFlight } from '../pipeline/single-flight.js';
import { unpaid, type MissPayer } from '../budget/payer.js';
import { compose, type ComposeDeps, type Composition } from './compose.js';
import { isComposedFresh, type ComposedEntry } from './entry.js';
import type { PageMetrics } from './metrics.js';
import type { CompiledPage } from './plan.js';

export interface PagesDeps extends ComposeDeps {
  pages: ReadonlyMap<string, CompiledPage>;
  metrics: PageMetrics;
  logger: Logger;
  /** Bytes of composed pages kept in memory. */
  maxBytes: number;
}

export type PageResult = Composition & { cache: 'MISS' | 'STALE' };

const ENTRY_OVERHEAD = 512;

export class Pages {
  readonly #d: PagesDeps;
  readonly #cache: LRUCache<string, ComposedEntry>;
  readonly #flights = new SingleFlight<PageResult>();

  constructor(deps: PagesDeps) {
    this.#d = deps;
    this.#cache = new LRUCache<string, ComposedEntry>({
      maxSize: deps.maxBytes,
      sizeCalculation: (e) => e.body.length * (e.stamps.length > 0 ? 2 : 1) + e.key.length + ENTRY_OVERHEAD,
    });
  }

  page(name: string): CompiledPage | undefined {
    return this.#d.pages.get(name);
  }

  names(): string[] {
    return [...this.#d.pages.keys()];
  }

  /** Validates the raw query of a page request (400 ProxyError naming the parameter). */
  request(page: CompiledPage, rawQuery: string): CanonicalRequest {
    return canonicalize(page.def, rawQuery, this.#d.limits);
  }

  /** Synchronous fast path: the fresh composed page, or undefined. */
  hit(key: string, now: number): ComposedEntry | undefined {
    const e = this.#cache.get(key);
    if (e === undefined || !isComposedFresh(e, now, this.#d.chain.bestHead())) return undefined;
    // A page kept with a stale part: recomposed as soon as that part is fresh again.
    if (e.stale && e.staleParts.some((req) => this.#d.resolver.hit(req, now) !== undefined)) return undefined;
    return e;
  }

  /**
   * Composes (or joins the composition under way) and stores a successful page.
   * `payer`: charged per part the composition leads upstream (joining one is free).
   */
  get(page: CompiledPage, req: CanonicalRequest, payer: MissPayer | null = null): Promise<PageResult> {
    const { promise, joined } = this.#flights.run(req.key, () => this.#compose(page, req, payer));
    if (!joined) return promise;
    // Parts the leading client could not pay for are composed again on this client's budget.
    return promise.then((r) => (unpaid(r.outcomes) ? this.#compose(page, req, payer) : r));
  }

  /**
   * Recomposes a page in the background (e.g. `/pages/home` on a new head),
   * unless a composition of it is under way. With `onlyCached`, only a page
   * that clients asked for (still in the page cache) is recomposed.
   * Resolves when done; never rejects.
   */
  refresh(name: string, params: Readonly<Record<string, string>> = {}, onlyCached = false): Promise<void> {
    const page = this.page(name);
    if (page === undefined) return Promise.resolve();
    let req: CanonicalRequest;
    try {
      req = this.request(page, new URLSearchParams(params).toString());
    } catch (e) {
      this.#d.logger.warn({ page: name, err: toProxyError(e).message }, 'page refresh: invalid parameters');
      return Promise.resolve();
    }
    if (this.#flights.has(req.key) || (onlyCached && !this.#cache.has(req.key))) return Promise.resolve();
    return this.get(page, req).then(
      () => undefined,
      (e: unknown) => this.#d.logger.warn({ page: name, err: toProxyError(e).message }, 'page refresh failed'),
    );
  }

  async #compose(page: CompiledPage, req: CanonicalRequest, payer: MissPayer | null): Promise<PageResult> {
    const started = performance.now();
    const c = await compose(page, req.params, req.key, payer === null ? this.#d : { ...this.#d, payer });
    const summaries = c.ok ? c.entry.parts : c.outcomes.map((o) => ({ name: o.part.name, cache: o.res?.result ?? (o.skipped ? 'SKIPPED' : 'ERROR') }));
    this.#d.metrics.composed(page.name, summaries, (performance.now() - started) / 1000);
    // A page missing parts its client could not pay for is not kept for other clients.
    if (c.ok && c.entry.freshUntil > c.entry.createdAt && !unpaid(c.outcomes)) this.#cache.set(req.key, c.entry);
    return { ...c, cache: c.ok && c.entry.stale ? 'STALE' : 'MISS' };
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#cache.size, bytes: this.#cache.calculatedSize };
  }
}
