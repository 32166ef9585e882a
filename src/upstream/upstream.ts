/**
 * One upstream backend: its keep-alive undici Pool, circuit breaker, recent
 * latency, in-flight count, last known head and probe result. `run` wraps one
 * attempt with the bookkeeping (breaker permit, in-flight, latency, metrics,
 * last error); it never decides where to go next.
 */
import { Pool } from 'undici';
import { ProxyError, toProxyError, type ErrorKind } from '../errors/catalog.js';
import type { UpstreamConfig } from '../config/types.js';
import type { Metrics, UpstreamOutcome } from '../metrics/types.js';
import { attempt } from './attempt.js';
import { isHedgeLoss } from './hedge-loss.js';
import { Breaker, type Permit } from '../common/breaker.js';
import { LatencyStats } from './latency.js';
import { isNegative } from '../transform/envelope.js';
import { UpstreamSlots } from './queue.js';
import {
  PURPOSE_HEADER,
  type Purpose,
  type UpstreamRequest,
  type UpstreamResponse,
  type UpstreamStatus,
} from './types.js';

/** Default bound of requests waiting for a connection to one upstream (UPSTREAM_MAX_QUEUE). */
const DEFAULT_MAX_QUEUE = 256;

export interface UpstreamOptions {
  name: string;
  url: string;
  config: UpstreamConfig;
  metrics: Metrics;
  clock?: () => number;
  /** A request refused because this upstream's queue is full. */
  onShed?: (upstream: string) => void;
}

export interface RunOptions {
  path: string;
  /** Metrics label; null for probes (which are not counted as requests). */
  endpoint: UpstreamRequest['endpoint'] | null;
  accept?: UpstreamRequest['accept'];
  acceptKind?: ErrorKind;
  signal?: AbortSignal | undefined;
  attempt: number;
  /** Requests need a breaker permit; probes run anyway and only report to the breaker when they hold one. */
  gated: boolean;
  /** Sent as PURPOSE_HEADER; null or absent: none (a client's miss). */
  purpose?: Purpose | null | undefined;
}

const OUTCOME: Record<ErrorKind, UpstreamOutcome> = {
  UPSTREAM_ERROR: 'http_error',
  UPSTREAM_TIMEOUT: 'timeout',
  UPSTREAM_BAD_RESPONSE: 'bad_response',
  UPSTREAM_UNAVAILABLE: 'unavailable',
  UPSTREAM_LAGGING: 'lagging',
  UPSTREAM_OVERLOADED: 'unavailable',
  BAD_REQUEST: 'bad_response',
  BAD_PARAMETER: 'bad_response',
  MISSING_PARAMETER: 'bad_response',
  DUPLICATE_PARAMETER: 'bad_response',
  ROUTE_NOT_FOUND: 'bad_response',
  METHOD_NOT_ALLOWED: 'bad_response',
  RATE_LIMITED: 'http_error',
  INTERNAL: 'unavailable',
  SHUTTING_DOWN: 'unavailable',
  REQUEST_TIMEOUT: 'timeout',
};

/** Splits a base URL into origin, path prefix, shown URL (no credentials) and an optional basic-auth header. */
function parseBaseUrl(raw: string): { origin: string; basePath: string; shown: string; authorization: string | null } {
  const u = new URL(raw);
  const basePath = u.pathname.replace(/\/+$/, '');
  const authorization =
    u.username !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : null;
  return { origin: u.origin, basePath, shown: u.origin + basePath, authorization };
}

export class Upstream {
  readonly name: string;
  readonly url: string;
  readonly breaker: Breaker;
  readonly latency = new LatencyStats();
  inFlight = 0;
  head: number | null = null;
  /** Result of the last probe; null before the first one. */
  probeOk: boolean | null = null;
  /** performance.now() of its last good answer (probe or request); null before one. */
  #lastGoodAt: number | null = null;
  #lastError: string | null = null;
  /** performance.now() when lastError was recorded. */
  #lastErrorAt: number | null = null;
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;
  /** The headers with PURPOSE_HEADER, one object per purpose (built once). */
  readonly #purposed: Readonly<Record<Purpose, Record<string, string>>>;
  readonly #config: UpstreamConfig;
  readonly #metrics: Metrics;
  readonly #slots: UpstreamSlots;
  readonly #onShed: ((upstream: string) => void) | null;

  constructor(opts: UpstreamOptions) {
    const { origin, basePath, shown, authorization } = parseBaseUrl(opts.url);
    this.name = opts.name;
    this.url = shown;
    this.#basePath = basePath;
    this.#config = opts.config;
    this.#metrics = opts.metrics;
    this.#slots = new UpstreamSlots(opts.config.connections, opts.config.maxQueue ?? DEFAULT_MAX_QUEUE);
    this.#onShed = opts.onShed ?? null;
    // Only what the upstream needs: never a client header.
    this.#headers = {
      accept: 'application/json',
      'accept-encoding': 'identity',
      ...(authorization ? { authorization } : {}),
    };
    const h = this.#headers;
    this.#purposed = {
      probe: { ...h, [PURPOSE_HEADER]: 'probe' },
      block: { ...h, [PURPOSE_HEADER]: 'block' },
      pending: { ...h, [PURPOSE_HEADER]: 'pending' },
      refresh: { ...h, [PURPOSE_HEADER]: 'refresh' },
    };
    this.breaker = new Breaker({
      failures: opts.config.breakerFailures,
      cooldownMs: opts.config.breakerCooldownMs,
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
    this.#pool = new Pool(origin, {
      connections: opts.config.connections,
      connect: { timeout: opts.config.connectTimeoutMs },
      headersTimeout: opts.config.attemptTimeoutMs,
      bodyTimeout: opts.config.attemptTimeoutMs,
      pipelining: 1,
    });
  }

  /**
   * The fleet leader's probe of it answered well: counts as a good
   * answer here (readiness of a follower that does not probe).
   */
  vouched(): void {
    this.#lastGoodAt = performance.now();
  }

  /** Probe ok (or not yet probed is NOT healthy) and breaker not open. */
  healthy(): boolean {
    return this.probeOk === true && this.breaker.state() !== 'open';
  }

  /** Within maxLagBlocks of the best head (unknown best head: nobody lags; unknown own head: lagging). */
  fresh(bestHead: number | null, maxLagBlocks: number): boolean {
    if (bestHead === null) return true;
    return this.head !== null && this.head >= bestHead - maxLagBlocks;
  }

  /** Its last failure in words (kind: detail); null before one. */
  get lastError(): string | null {
    return this.#lastError;
  }

  #failed(text: string): void {
    this.#lastError = text;
    this.#lastErrorAt = performance.now();
  }

  /** Ms since its last good answer (a passing probe or an accepted request); null before one. */
  lastGoodAgoMs(): number | null {
    return this.#lastGoodAt === null ? null : Math.round(performance.now() - this.#lastGoodAt);
  }

  /** Its admission queue is full: a request sent here now would be refused. */
  saturated(): boolean {
    return this.#slots.full();
  }

  /** Requests waiting for a connection slot. */
  get queued(): number {
    return this.#slots.waiting;
  }

  /** Another upstream contradicted a negative answer of this one: counts as a failure. */
  contradicted(detail: string): void {
    this.#failed(`contradicted: ${detail}`);
    this.breaker.failure('pass');
  }

  /**
   * Requests wait for a connection slot first (bounded; full → UPSTREAM_OVERLOADED
   * at once). Only then do the breaker permit, the attempt timeout and the
   * latency clock start, so time queued inside the proxy never counts against
   * the upstream. Latency samples come from good answers only (slow failures
   * only push the selection EWMA up, never into the hedging quantile).
   */
  async run(o: RunOptions): Promise<UpstreamResponse> {
    if (o.gated && !this.breaker.canPass()) {
      throw new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { detail: `${this.name}: circuit breaker open` });
    }
    this.inFlight++;
    let release: (() => void) | null = null;
    try {
      if (o.gated) {
        const slot = this.#slots.acquire(o.signal);
        release = typeof slot === 'function' ? slot : await slot;
      }
    } catch (e) {
      this.inFlight--;
      // Never sent: not an upstream request (no outcome, no duration), only a shed count.
      const err = toProxyError(e);
      if (err.kind === 'UPSTREAM_OVERLOADED') this.#onShed?.(this.name);
      throw err;
    }
    const permit: Permit | null = this.breaker.tryAcquire();
    if (permit === null && o.gated) {
      this.inFlight--;
      release?.();
      throw new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { detail: `${this.name}: circuit breaker open` });
    }
    const started = performance.now();
    // The answer shows at least the head this upstream had reported when it was asked.
    const head = this.head;
    let outcome: UpstreamOutcome = 'ok';
    try {
      const res = await attempt(this.#pool, {
        upstream: this.name,
        basePath: this.#basePath,
        path: o.path,
        headers: o.purpose == null ? this.#headers : this.#purposed[o.purpose],
        timeoutMs: this.#config.attemptTimeoutMs,
        maxBodyBytes: this.#config.maxBodyBytes,
        attempt: o.attempt,
        accept: o.accept,
        ...(o.acceptKind ? { acceptKind: o.acceptKind } : {}),
        signal: o.signal,
      });
      // A negative answer proves nothing about health (another upstream may contradict it).
      if (isNegative(res.status, res.json)) {
        if (permit) this.breaker.release(permit);
      } else {
        this.latency.record(res.durationMs);
        this.#lastGoodAt = performance.now();
        if (permit) this.breaker.success(permit);
      }
      return { ...res, head };
    } catch (e) {
      const err = e as ProxyError; // attempt() rejects only with ProxyError
      const elapsed = performance.now() - started;
      if (o.signal?.aborted) {
        outcome = 'cancelled';
        if (isHedgeLoss(o.signal.reason)) {
          // Outrun by a hedge: this upstream was too slow. When it answered nothing
          // well meanwhile it may be hung, and counting it keeps it from drawing
          // first attempts forever (hedged-away attempts never time out). One that
          // answered others meanwhile is busy, not failing: on a loaded machine every
          // upstream loses races, and counting those would open every breaker at once.
          this.latency.penalize(elapsed);
          if (this.#lastGoodAt !== null && this.#lastGoodAt > started) {
            if (permit) this.breaker.release(permit);
          } else {
            this.#failed('slow: outrun by a hedged attempt');
            if (permit) this.breaker.failure(permit);
          }
        } else if (permit) this.breaker.release(permit);
      } else {
        outcome = OUTCOME[err.kind];
        this.#failed(`${err.kind}${err.detail ? `: ${err.detail}` : ''}`);
        if (outcome === 'lagging') {
          if (permit) this.breaker.success(permit);
        } else {
          if (outcome === 'timeout') this.latency.penalize(elapsed);
          if (permit) this.breaker.failure(permit);
        }
      }
      throw err;
    } finally {
      this.inFlight--;
      release?.();
      if (o.endpoint !== null)
        this.#metrics.upstreamRequest(this.name, o.endpoint, outcome, (performance.now() - started) / 1000);
      if (o.purpose != null) this.#metrics.upstreamBackground(o.purpose);
    }
  }

  status(bestHead: number | null, maxLagBlocks: number): UpstreamStatus {
    const lag = bestHead !== null && this.head !== null ? Math.max(0, bestHead - this.head) : null;
    return {
      name: this.name,
      url: this.url,
      healthy: this.healthy(),
      lagging: !this.fresh(bestHead, maxLagBlocks),
      head: this.head,
      lag,
      breaker: this.breaker.state(),
      inFlight: this.inFlight,
      latencyP50Ms: this.latency.quantile(0.5),
      latencyP99Ms: this.latency.quantile(0.99),
      lastError: this.#lastError,
      lastErrorAgoMs: this.#lastErrorAt === null ? null : Math.round(performance.now() - this.#lastErrorAt),
    };
  }

  /** Closes the pool once the requests in flight on it have ended (a reload replaced this upstream). */
  retire(): void {
    this.#pool.close().catch(() => undefined);
  }

  /** Closes the pool, destroying in-flight requests. */
  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
