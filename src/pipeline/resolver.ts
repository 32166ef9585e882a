/**
 * The request pipeline after validation: lookup (memory, then the second
 * tier), single flight to the upstream pool on a miss, store, and the stale
 * rules. Callable in-process (`resolve(canonicalRequest)`) so aggregate
 * endpoints compose lookups without HTTP hops.
 *
 *   fresh in memory        → HIT   (synchronous fast path: `hit()`)
 *   stale (SWR window)     → STALE at once, one background refresh
 *   finalAt reached        → promoted to the final TTL, HIT
 *   fresh in second tier   → HIT from the Redis value (no compression); promoted
 *                            into memory with the remaining TTL when read again
 *                            and more often than what it would evict (cache/admission.ts)
 *   otherwise              → join or lead one flight → MISS (BYPASS if not storable)
 *   flight failed          → STALE from the stale-if-error window, else the error
 */
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { ChainFacts, ChainFeedback, ChainView } from '../chain/types.js';
import type { CacheEntry, CacheResult, CacheStore } from '../cache/types.js';
import { entryState, takesOver, type TagJudge } from '../cache/entry.js';
import { promoteIfFinal } from '../cache/lifetime.js';
import { MemoryEntry, type MemoryStore } from '../cache/memory-store.js';
import { MemoryAdmission } from '../cache/admission.js';
import { carriedGzip } from '../cache/carried-gzip.js';
import { toProxyError, type ProxyError } from '../errors/catalog.js';
import type { FleetCoordinator } from '../fleet/connect.js';
import type { Metrics } from '../metrics/types.js';
import type { Learn, Replaced } from './fetch-stage.js';
import type { Fetched } from '../invalidation/own-reads.js';
import { SingleFlight, type FlightContext } from './single-flight.js';
import type { MissPayer } from '../ratelimit/payer.js';
import type { HeadGuard } from './head-guard.js';
import type { Purpose } from '../upstream/types.js';

/** Fleet-wide single flight (issue 5): a Redis lease so one replica fetches for all. */
export interface Resolution {
  result: CacheResult;
  entry: CacheEntry;
  /** The memory-tier wrapper (compressed variants) when the entry is stored there. */
  mem: MemoryEntry | undefined;
  upstream: string | null;
  upstreamMs: number | null;
  /** Why a stale entry was served instead of a fresh answer. */
  staleReason: 'revalidate' | 'error' | null;
  error: ProxyError | null;
}

interface Filled {
  entry: CacheEntry;
  stored: boolean;
  upstream: string | null;
  upstreamMs: number | null;
}

/** What the resolver reads of a request: its cache key, and the name it is counted and charged under. */
export interface Lookup {
  key: string;
  endpoint: {
    name: string;
    policy: { finalTtlMs: number };
    module?: { readonly reportsHead: boolean } | undefined;
  };
}

/** What fetches one answer for a request (the fetch stage for the API, src/passthrough for a backend). */
export interface Fetcher<R> {
  fetch(
    req: R,
    signal?: AbortSignal,
    purpose?: Purpose | null,
    learn?: Learn | null,
    replaced?: Replaced | null,
    /** Pays for each attempt after the first (the leading client's miss budget); null: free. */
    extra?: (() => boolean) | null,
  ): Promise<Fetched>;
  /** The final height a stored entry shows (null: none). */
  finalShown(req: R, entry: CacheEntry): number | null;
}

export interface ResolverDeps<R extends Lookup = CanonicalRequest> {
  memory: MemoryStore;
  second: CacheStore | null;
  fetcher: Fetcher<R>;
  /** Read for freshness; fed the facts each fetched answer showed. */
  chain: ChainView & ChainFeedback;
  fleet: FleetCoordinator | null;
  metrics: Metrics;
  clock: () => number;
  logger: Logger;
  /** Applied to every head answer whatever its source (block/max never goes backwards); null: none. */
  headGuard: HeadGuard | null;
  /** Sees every lookup's request once: fresh hits in `hit`, the rest in `resolve` (hot keys); null: none. */
  observe?: ((req: R) => void) | null;
  /** Precise invalidation (src/invalidation/clock.ts); null: the head rule alone. */
  tags?: TagJudge | null;
  /** Sees each fetched entry with the memory entry it replaces (unchanged-refetch metric); null: none. */
  refetched?: ((endpoint: string, before: CacheEntry | undefined, after: CacheEntry) => void) | null;
  /** Which second-tier hits enter the memory tier (absent: a sketch of its own, no metrics). */
  admission?: MemoryAdmission;
  /** Whether a failed fetch may be answered by a stale copy (absent: every failure may). */
  staleFor?: (error: ProxyError) => boolean;
}

const ignore = (): void => {};

/**
 * X-Cache of a flight's answer: not stored, BYPASS; stored with no upstream request behind it (an entry another
 * worker lent or another replica's flight filled), HIT: a copy, as a shared-tier hit is; else MISS.
 */
const flightVerdict = (f: Filled): CacheResult => (!f.stored ? 'BYPASS' : f.upstream === null ? 'HIT' : 'MISS');

type Judged = { state: 'fresh' | 'stale' | 'error-only' | 'dead'; entry: CacheEntry };

export class Resolver<R extends Lookup = CanonicalRequest> {
  readonly #d: ResolverDeps<R>;
  readonly #flights = new SingleFlight<Filled>();
  readonly #observe: (req: R) => void;
  readonly #tags: TagJudge | null;
  readonly #admission: MemoryAdmission;
  readonly #learn = (facts: ChainFacts): void => this.#d.chain.apply(facts);

  constructor(deps: ResolverDeps<R>) {
    this.#d = deps;
    this.#observe = deps.observe ?? ignore;
    this.#tags = deps.tags ?? null;
    this.#admission = deps.admission ?? new MemoryAdmission();
  }

  /** Synchronous fast path: a fresh memory entry, or undefined. Counted as an upstream request saved. */
  hit(req: R, now: number): Resolution | undefined {
    const mem = this.#d.memory.peek(req.key);
    if (mem === undefined || entryState(mem.entry, now, this.#d.chain, this.#tags) !== 'fresh') return undefined;
    this.#admission.record(req.key);
    this.#observe(req);
    this.#d.metrics.upstreamSaved(req.endpoint.name);
    const r: Resolution = {
      result: 'HIT',
      entry: mem.entry,
      mem,
      upstream: null,
      upstreamMs: null,
      staleReason: null,
      error: null,
    };
    return req.endpoint.module?.reportsHead === true ? this.#guard(r) : r;
  }

  /**
   * The pre-router path's read of the shared tier for a key memory does not
   * hold: a promise of its fresh hit (undefined when it is not fresh there: the
   * request is then resolved as usual), or null at once when there is no shared
   * tier, memory holds the key, or the endpoint reports the head (its guard).
   */
  secondHit(req: R): Promise<Resolution | undefined> | null {
    const second = this.#d.second;
    if (second === null || req.endpoint.module?.reportsHead === true || this.#d.memory.peek(req.key) !== undefined)
      return null;
    return second.get(req.key).then((found) => {
      if (found === undefined) return undefined;
      const j = this.#judge(req, found, this.#d.clock());
      if (j.state !== 'fresh') return undefined;
      this.#observe(req);
      return this.#serve(req, j, this.#fromSecond(j.entry));
    });
  }

  /**
   * `client`: aborted when the client has gone; a flight every client left is cancelled (single-flight.ts).
   * `payer`: charged when this call leads an upstream fetch (src/ratelimit/payer.ts); null: nobody pays.
   * `purpose`: the proxy's own background lookup (sent upstream as a header); null: a client's.
   */
  async resolve(
    req: R,
    client?: AbortSignal,
    payer: MissPayer | null = null,
    purpose: Purpose | null = null,
  ): Promise<Resolution> {
    this.#observe(req);
    const guard = this.#d.headGuard;
    if (guard === null || req.endpoint.module?.reportsHead !== true) return this.#resolve(req, client, payer, purpose);
    try {
      return this.#guard(await this.#resolve(req, client, payer, purpose));
    } catch (err) {
      const last = guard.last();
      if (last === null) throw err;
      return {
        result: 'STALE',
        entry: last,
        mem: undefined,
        upstream: null,
        upstreamMs: null,
        staleReason: 'error',
        error: toProxyError(err),
      };
    }
  }

  /**
   * `res` once the compressed variants its store began are in place: a MISS to a client that takes gzip or brotli
   * waits for them, so it and every hit after it go out compressed (hits never compress). Others need not wait.
   */
  async compressed(res: Resolution): Promise<Resolution> {
    if (res.result !== 'MISS' || res.mem === undefined) return res;
    const memory = this.#d.memory;
    await memory.made(res.entry.key);
    const mem = memory.peek(res.entry.key);
    return mem === res.mem || mem === undefined || mem.entry !== res.entry ? res : { ...res, mem };
  }

  /** The head guard may put another entry in place of the one found (served as STALE). */
  #guard(r: Resolution): Resolution {
    const guard = this.#d.headGuard;
    if (guard === null) return r;
    const entry = guard.check(r.entry);
    if (entry === r.entry) return r;
    const mem = this.#d.memory.peek(r.entry.key);
    return {
      ...r,
      result: 'STALE',
      entry,
      mem: mem !== undefined && mem.entry === entry ? mem : undefined,
      staleReason: r.staleReason ?? 'revalidate',
    };
  }

  async #resolve(
    req: R,
    client: AbortSignal | undefined,
    payer: MissPayer | null,
    purpose: Purpose | null,
  ): Promise<Resolution> {
    const { memory, second, clock } = this.#d;
    const now = clock();
    let fallback: CacheEntry | undefined;
    // The shared tier's copy, whatever its state: what a fetch replaces when memory holds none.
    let prior: CacheEntry | undefined;

    const mem = memory.peek(req.key);
    if (mem !== undefined) {
      const j = this.#judge(req, mem.entry, now);
      const served = this.#serve(req, j, memory.peek(req.key) ?? mem);
      if (served !== undefined) return served;
      if (j.state === 'error-only') fallback = j.entry;
    }

    if (second !== null) {
      const found = await second.get(req.key);
      prior = found;
      if (found !== undefined) {
        const j = this.#judge(req, found, now);
        if (j.state === 'fresh' || j.state === 'stale') {
          const served = this.#serve(req, j, this.#fromSecond(j.entry));
          if (served !== undefined) return served;
        }
        if (j.state === 'error-only' && (fallback === undefined || j.entry.createdAt > fallback.createdAt))
          fallback = j.entry;
      }
    }

    // Leading a fetch is charged to the payer (throws when its budget is spent); joining is free.
    if (payer !== null && !this.#flights.has(req.key)) payer.lead(req.endpoint.name);
    // Its retries and hedges too: an attempt it cannot pay for is not made.
    const extra = payer === null ? null : () => payer.extra(req.endpoint.name);
    const { promise, joined } = this.#flights.run(
      req.key,
      (ctx) => this.#fill(req, ctx, purpose, prior, extra),
      client,
    );
    if (joined) {
      this.#d.metrics.singleFlightJoin(req.endpoint.name);
      this.#d.metrics.upstreamSaved(req.endpoint.name);
    }
    const headAtJoin = joined ? this.#d.chain.bestHead() : null;
    try {
      let f = await promise;
      // A joined flight that began before the head this request arrived at may answer behind it.
      if (headAtJoin !== null && f.stored) f = await this.#atHead(req, f, headAtJoin, purpose, client);
      // Filled by another replica's fetch (fleet lease): no upstream request was made here.
      if (payer !== null && !joined && f.upstream === null) payer.refund(req.endpoint.name);
      const result = flightVerdict(f);
      const stored = f.stored ? memory.peek(req.key) : undefined;
      return {
        result,
        entry: f.entry,
        mem: stored !== undefined && stored.entry === f.entry ? stored : undefined,
        upstream: joined ? null : f.upstream,
        upstreamMs: joined ? null : f.upstreamMs,
        staleReason: null,
        error: null,
      };
    } catch (err) {
      const error = toProxyError(err);
      if (fallback === undefined || this.#d.staleFor?.(error) === false) throw error;
      this.#d.metrics.upstreamSaved(req.endpoint.name);
      const again = memory.peek(req.key);
      return {
        result: 'STALE',
        entry: fallback,
        mem: again !== undefined && again.entry === fallback ? again : undefined,
        upstream: null,
        upstreamMs: null,
        staleReason: 'error',
        error,
      };
    }
  }

  /** State of an entry, promoting it to the final TTL when its block has become final. */
  #judge(req: R, entry: CacheEntry, now: number): Judged {
    const state = entryState(entry, now, this.#d.chain, this.#tags);
    if (state === 'fresh' || entry.finalAt === null) return { state, entry };
    const final = this.#d.chain.finalHeight();
    if (final === null) return { state, entry };
    const promoted = promoteIfFinal(entry, req.endpoint.policy.finalTtlMs, now, final);
    if (promoted === null) return { state, entry };
    void this.#store(promoted, false);
    return { state: 'fresh', entry: promoted };
  }

  /** A second-tier hit's payloads: promoted into memory when admitted, else answered from the Redis value alone. */
  #fromSecond(entry: CacheEntry): MemoryEntry | undefined {
    const gz = carriedGzip(entry.body);
    const memory = this.#d.memory;
    return this.#admission.admit(entry.key, () => memory.victim(entry, gz))
      ? memory.promote(entry, gz)
      : MemoryEntry.passing(entry, gz);
  }

  #serve(req: R, j: Judged, mem: MemoryEntry | undefined): Resolution | undefined {
    if (j.state !== 'fresh' && j.state !== 'stale') return undefined;
    this.#d.metrics.upstreamSaved(req.endpoint.name);
    if (j.state === 'stale') this.refresh(req);
    return {
      result: j.state === 'fresh' ? 'HIT' : 'STALE',
      entry: j.entry,
      mem: mem !== undefined && mem.entry === j.entry ? mem : undefined,
      upstream: null,
      upstreamMs: null,
      staleReason: j.state === 'stale' ? 'revalidate' : null,
      error: null,
    };
  }

  /** Starts a background refresh unless one is under way. */
  refresh(req: R): void {
    if (this.#flights.has(req.key)) return;
    this.#flights
      .run(req.key, (ctx) => this.#fill(req, ctx, 'refresh'))
      .promise.catch((err: unknown) => {
        this.#d.logger.warn({ key: req.key, err: toProxyError(err).message }, 'background refresh failed');
      });
  }

  /**
   * Fetches and stores the key now, joining a flight under way; when that
   * answer is behind the current head and no longer fresh, fetches once more.
   */
  async revalidate(req: R, purpose: Purpose = 'refresh'): Promise<CacheEntry> {
    const head = this.#d.chain.bestHead();
    const f = await this.#flights.run(req.key, (ctx) => this.#fill(req, ctx, purpose)).promise;
    return head === null ? f.entry : (await this.#atHead(req, f, head, purpose)).entry;
  }

  /** As `revalidate` (purpose `refresh`), but the entry only once kept in every tier; null when it was not kept. */
  async renew(req: R): Promise<CacheEntry | null> {
    const head = this.#d.chain.bestHead();
    const f = await this.#flights.run(req.key, (ctx) => this.#fill(req, ctx, 'refresh')).promise;
    const g = head === null ? f : await this.#atHead(req, f, head, 'refresh');
    return g.stored ? g.entry : null;
  }

  /** `f` when fetched at `head` or later, or still fresh; else the next flight's answer (joined or led), once. */
  async #atHead(req: R, f: Filled, head: number, purpose: Purpose | null, client?: AbortSignal): Promise<Filled> {
    if (
      f.entry.head === null ||
      f.entry.head >= head ||
      entryState(f.entry, this.#d.clock(), this.#d.chain, this.#tags) === 'fresh'
    )
      return f;
    return this.#flights.run(req.key, (ctx) => this.#fill(req, ctx, purpose), client).promise;
  }

  /** Whether the memory entry of `req` is fresh and was fetched at the believed head or later (nothing to refresh). */
  current(req: R): boolean {
    const e = this.#d.memory.peek(req.key)?.entry;
    const head = this.#d.chain.bestHead();
    return (
      e !== undefined &&
      e.head !== null &&
      head !== null &&
      e.head >= head &&
      entryState(e, this.#d.clock(), this.#d.chain, this.#tags) === 'fresh'
    );
  }

  /** Stores an entry made outside a flight (the head entry from a probe answer, pipeline/head-entry.ts). */
  keep(entry: CacheEntry): void {
    void this.#store(entry, false);
  }

  /**
   * `prior`: the shared tier's copy when the caller read it (else read here for a background refresh).
   * `extra`: pays for each upstream attempt after the first (the leading client's miss budget); null: free.
   */
  async #fill(
    req: R,
    ctx: FlightContext,
    purpose: Purpose | null,
    prior?: CacheEntry,
    extra: (() => boolean) | null = null,
  ): Promise<Filled> {
    const { fleet, clock, chain } = this.#d;
    if (fleet === null) return this.#fetchAndStore(req, ctx, purpose, prior, extra);
    const leader = await fleet.acquire(req.key);
    if (!leader) {
      const filled = await fleet.waitForFill(req.key);
      // What the leader's answer showed is learned here too, before the fill is judged.
      const final = filled === undefined ? null : this.#d.fetcher.finalShown(req, filled);
      if (final !== null) chain.apply({ head: null, final, source: '', shown: true });
      if (filled !== undefined && entryState(filled, clock(), chain, this.#tags) === 'fresh') {
        this.#d.memory.put(filled);
        this.#d.metrics.upstreamSaved(req.endpoint.name);
        return { entry: filled, stored: true, upstream: null, upstreamMs: null };
      }
    }
    try {
      const shared = purpose === 'refresh' && prior === undefined ? await this.#shared(req) : { prior };
      if (shared.take !== undefined) return { entry: shared.take, stored: true, upstream: null, upstreamMs: null };
      return await this.#fetchAndStore(req, ctx, purpose, shared.prior, extra);
    } finally {
      if (leader) await fleet.release(req.key);
    }
  }

  /**
   * A background refresh first reads the shared tier: another replica may have
   * refreshed the key since this one stored it (replicas' copies expire at
   * about the same time). Taken when fresh and newer than this replica's copy;
   * else it is the `prior` the fetch replaces.
   */
  async #shared(req: R): Promise<{ take?: CacheEntry; prior?: CacheEntry | undefined }> {
    const second = this.#d.second;
    if (second === null) return {};
    const found = await second.get(req.key).catch(() => undefined);
    if (found === undefined || !this.offer(found)) return { prior: found };
    this.#d.metrics.upstreamSaved(req.endpoint.name);
    return { take: found };
  }

  /**
   * An entry another replica made (the shared tier's copy, the fleet leader's
   * refresh): into memory when fresh by this replica's judgement and made
   * later than its own copy. True when taken.
   */
  readonly offer = (entry: CacheEntry): boolean => {
    const { memory, clock, chain } = this.#d;
    if (entryState(entry, clock(), chain, this.#tags) !== 'fresh' || !takesOver(memory.peek(entry.key)?.entry, entry))
      return false;
    memory.put(entry);
    return true;
  };

  /** This replica's memory entry of `key` when fresh by its judgement (what it can lend another worker). */
  freshHeld(key: string): CacheEntry | undefined {
    const e = this.#d.memory.peek(key)?.entry;
    return e !== undefined && entryState(e, this.#d.clock(), this.#d.chain, this.#tags) === 'fresh' ? e : undefined;
  }

  /**
   * `prior`: the shared tier's copy, what the new entry replaces when memory holds none (its earned bound carries on).
   */
  async #fetchAndStore(
    req: R,
    ctx: FlightContext,
    purpose: Purpose | null,
    prior?: CacheEntry,
    extra: (() => boolean) | null = null,
  ): Promise<Filled> {
    // The facts the answer showed are applied before its entry's lifetime is decided (once, in the fetch stage).
    const replaced = (): CacheEntry | undefined => this.#d.memory.peek(req.key)?.entry ?? prior;
    const f = await this.#d.fetcher.fetch(req, ctx.signal, purpose, this.#learn, replaced, extra);
    ctx.answered();
    // With a fleet lease, followers on other replicas read the fill from Redis: write it before release.
    if (f.cacheable) {
      const own = this.#d.memory.peek(req.key)?.entry;
      // An entry fetched at a later head still believed (an adopted probe answer, a newer flight) is not replaced by
      // this older one: it is served instead.
      if (own !== undefined && this.#newer(own, f.entry)) {
        return { entry: own, stored: true, upstream: f.upstream, upstreamMs: f.upstreamMs };
      }
      const before = own ?? prior;
      this.#d.refetched?.(req.endpoint.name, before, f.entry);
      await this.#store(f.entry, this.#d.fleet !== null);
      return { entry: f.entry, stored: true, upstream: f.upstream, upstreamMs: f.upstreamMs };
    }
    return { entry: f.entry, stored: false, upstream: f.upstream, upstreamMs: f.upstreamMs };
  }

  /** `a` was fetched at a later head than `b`, one the tracker still believes (not above a rebase), and is fresh. */
  #newer(a: CacheEntry, b: CacheEntry): boolean {
    const best = this.#d.chain.bestHead();
    if (a.head === null || b.head === null || best === null || a.head <= b.head || a.head > best) return false;
    return entryState(a, this.#d.clock(), this.#d.chain, this.#tags) === 'fresh';
  }

  /**
   * Memory at once (synchronously: the next request hits it); the second tier
   * in the background unless `awaitSecond`. Tier writes never fail a request.
   */
  async #store(entry: CacheEntry, awaitSecond: boolean): Promise<void> {
    this.#d.memory.put(entry);
    const second = this.#d.second;
    if (second === null) return;
    const written = second.set(entry).catch((err: unknown) => {
      this.#d.logger.warn({ key: entry.key, err: toProxyError(err).message }, 'second-tier write failed');
    });
    if (awaitSecond) await written;
  }

  get inFlight(): number {
    return this.#flights.size;
  }

  /** Resolves once no flight is under way (at once when none is). */
  idle(): Promise<void> {
    return this.#flights.idle();
  }
}
