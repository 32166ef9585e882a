/**
 * The aggregation layer: validated page requests, one composition in flight
 * per page key, and background recomposition (`refresh`).
 *
 * A composed page is an ordinary entry of the memory store, keyed
 * `pages/<name>?<canonical parameters>` (no endpoint path starts with
 * `pages/`), charged to the same byte bound, compressed in the background
 * like any entry, and judged by the same predicate (`entryState`, with the
 * tag clock). It is never written to the second tier. A fresh one is served
 * synchronously (`hit`), like a single cache hit.
 */
import type { Logger } from 'pino';
import { entryState, type TagJudge } from '../cache/entry.js';
import type { MemoryEntry, MemoryStore } from '../cache/memory-store.js';
import type { CacheEntry, CacheResult } from '../cache/types.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import { toProxyError } from '../errors/catalog.js';
import type { Resolution } from '../pipeline/resolver.js';
import { SingleFlight } from '../pipeline/single-flight.js';
import { unpaid, type MissPayer } from '../ratelimit/payer.js';
import { composePage, type ComposeDeps, type Composition } from './compose.js';
import type { PageMetrics } from './metrics.js';
import type { CompiledPage } from '../page-table/plan.js';

export interface PagesDeps extends ComposeDeps {
  pages: ReadonlyMap<string, CompiledPage>;
  metrics: PageMetrics;
  logger: Logger;
  /** The memory tier the pages are stored in, beside the entries of their parts. */
  memory: MemoryStore;
  /** Precise invalidation (the resolver's judge); null: the head rule alone. */
  tags: TagJudge | null;
}

export type PageResult = Composition & { cache: 'MISS' | 'STALE' };

export class Pages {
  readonly #d: PagesDeps;
  readonly #flights = new SingleFlight<PageResult>();
  #table: ReadonlyMap<string, CompiledPage>;

  constructor(deps: PagesDeps) {
    this.#d = deps;
    this.#table = deps.pages;
  }

  page(name: string): CompiledPage | undefined {
    return this.#table.get(name);
  }

  names(): string[] {
    return [...this.#table.keys()];
  }

  /** The page table in use. */
  table(): ReadonlyMap<string, CompiledPage> {
    return this.#table;
  }

  /**
   * A new page table (a reload): requests look pages up in it from now on; the
   * composed pages of each page in `gone` (removed or redefined) are dropped,
   * and a composition of an older definition still under way is not stored.
   */
  replace(table: ReadonlyMap<string, CompiledPage>, gone: readonly string[]): void {
    this.#table = table;
    if (gone.length === 0) return;
    const prefixes = gone.map((name) => `pages/${name}?`);
    const exact = new Set(gone.map((name) => `pages/${name}`));
    for (const e of this.#d.memory.held())
      if (exact.has(e.key) || prefixes.some((p) => e.key.startsWith(p))) void this.#d.memory.delete(e.key);
  }

  /** Validates the raw query of a page request (400 ProxyError naming the parameter). */
  request(page: CompiledPage, rawQuery: string): CanonicalRequest {
    return canonicalize(page.def, rawQuery, this.#d.limits);
  }

  /** Synchronous fast path: the fresh composed page (HIT, or STALE when kept with a stale part), or undefined. */
  hit(key: string, now: number): Resolution | undefined {
    const mem = this.#fresh(key, now);
    if (mem === undefined) return undefined;
    const stale = mem.entry.composed?.staleParts ?? [];
    // A page kept with a stale part: recomposed as soon as that part is fresh again.
    if (stale.length > 0 && stale.some((req) => this.#d.resolver.hit(req, now) !== undefined)) return undefined;
    return {
      result: stale.length > 0 ? 'STALE' : 'HIT',
      entry: mem.entry,
      mem,
      upstream: null,
      upstreamMs: null,
      staleReason: null,
      error: null,
    };
  }

  /** A fresh page with no stale part, as a HIT (the pre-router fast path, src/http/fast-hit.ts), or undefined. */
  freshHit(key: string, now: number): Resolution | undefined {
    const mem = this.#fresh(key, now);
    if (mem === undefined || (mem.entry.composed?.staleParts.length ?? 0) > 0) return undefined;
    return { result: 'HIT', entry: mem.entry, mem, upstream: null, upstreamMs: null, staleReason: null, error: null };
  }

  /** The stored page if fresh: one predicate for pages and entries (`entryState`, with the tag clock). */
  #fresh(key: string, now: number): MemoryEntry | undefined {
    const mem = this.#d.memory.peek(key);
    return mem !== undefined && entryState(mem.entry, now, this.#d.chain, this.#d.tags) === 'fresh' ? mem : undefined;
  }

  /** A composed page as delivered: with the stored variants when the memory tier holds it. */
  answer(entry: CacheEntry, result: CacheResult): Resolution {
    const mem = this.#d.memory.peek(entry.key);
    return {
      result,
      entry,
      mem: mem !== undefined && mem.entry === entry ? mem : undefined,
      upstream: null,
      upstreamMs: null,
      staleReason: null,
      error: null,
    };
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
   * that clients asked for (still in the memory tier) is recomposed.
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
    if (this.#flights.has(req.key) || (onlyCached && this.#d.memory.peek(req.key) === undefined))
      return Promise.resolve();
    return this.get(page, req).then(
      () => undefined,
      (e: unknown) => this.#d.logger.warn({ page: name, err: toProxyError(e).message }, 'page refresh failed'),
    );
  }

  async #compose(page: CompiledPage, req: CanonicalRequest, payer: MissPayer | null): Promise<PageResult> {
    const started = performance.now();
    const c = await composePage(page, req.params, req.key, payer === null ? this.#d : { ...this.#d, payer });
    const summaries = c.ok
      ? c.composed.parts
      : c.outcomes.map((o) => ({ name: o.part.name, cache: o.res?.result ?? (o.skipped ? 'SKIPPED' : 'ERROR') }));
    this.#d.metrics.composed(page.name, summaries, (performance.now() - started) / 1000);
    // A page missing parts its client could not pay for is not kept for other clients.
    const current = this.#table.get(page.name) === page;
    if (current && c.ok && c.entry.freshUntil > c.entry.createdAt && !unpaid(c.outcomes)) {
      this.#d.memory.put(c.entry);
      await this.#d.memory.made(req.key);
    }
    return { ...c, cache: c.ok && c.composed.staleParts.length > 0 ? 'STALE' : 'MISS' };
  }
}
