/**
 * The upstream pool: one Upstream (undici Pool, breaker, latency, head) per
 * base URL, a Prober, and the request path composed as
 *   retry(hedge(base))
 * where base selects an upstream (see select.ts) and runs one attempt.
 *
 * Names: `u0`, `u1`, ... in configuration order unless `names` is given.
 * They are the metric label values, so the label set is bounded by the
 * configuration and no hostname leaks into metrics; status() shows the URL
 * (without credentials) next to each name.
 *
 * Readiness: `start()` runs a probe round at once and then every
 * probeIntervalMs; `firstProbe` resolves when that first round is done.
 * Until then no upstream counts as healthy, so `ready()` is false (requests
 * are still served: selection only needs the breaker to let them through).
 *
 * Budget: maxAttempts counts every attempt launched for a request, hedges
 * included; totalDeadlineMs bounds the whole upstream phase. When every
 * breaker is open (or no URL is configured) a request fails at once with
 * UPSTREAM_UNAVAILABLE. Probes are not counted in the request metrics.
 *
 * Ballots of a quorum vote (consensus/quorum.ts) are single attempts, without
 * retry or hedge, each on its own upstream (never one already asked).
 * Benched upstreams (sit-out.ts) take requests only when nothing else can.
 */
import type { Logger } from 'pino';
import { ProxyError } from '../errors/catalog.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { UpstreamConfig } from '../config/types.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import { baseDispatch, composeDispatch, type Plan } from './dispatch.js';
import { hedgeDelay, hedgeLayer } from './hedge.js';
import { confirmLayer } from './confirm.js';
import { Prober, type FirstFailureSink, type ProbeDuty } from './prober.js';
import type { HeadWatch } from './head-watch.js';
import { retryLayer } from './retry.js';
import type { SitOuts } from './sit-out.js';
import type { UpstreamPool, UpstreamRequest, UpstreamResponse, UpstreamStatus } from './types.js';
import { Upstream } from './upstream.js';

export interface UpstreamPoolOptions {
  urls: string[];
  config: UpstreamConfig;
  tracker: ChainTracker;
  metrics?: Metrics;
  logger?: Logger;
  /** Metric/status names, one per URL (default u0, u1, ...). */
  names?: string[];
  /** Clock of the breakers (tests drive cooldowns). */
  clock?: () => number;
  /** A request refused at once because an upstream's queue was full. */
  onShed?: (upstream: string) => void;
  /** The tracker followed every upstream down to a lower head. */
  onRebase?: (from: number, to: number) => void;
  /** Benched upstreams (refuted heads, minority of disputes); null: nobody is benched. */
  sitOuts?: SitOuts | null;
  /** Probe cadence following the block interval (null: every probeIntervalMs). */
  watch?: HeadWatch | null;
  /**
   * A probe answer showing a new head, before the tracker believes it (the head entry is stored from it); null: none.
   */
  adopt?: ((res: UpstreamResponse, height: number) => void) | null;
  /** A probe answer showing the believed head again (the head entry stays fresh); null: none. */
  confirm?: ((height: number) => void) | null;
  /** A follower's copy of the leader's probe answer (the head entry is installed from it); null: none. */
  install?: ((res: UpstreamResponse, height: number) => void) | null;
  /** The fleet's division of probing (null: this replica probes). */
  duty?: ProbeDuty | null;
}

export interface ManagedUpstreamPool extends UpstreamPool {
  /** Starts probing (one round at once, then every probeIntervalMs). */
  start(): void;
  /** Resolves once the first probe round has completed (or the pool is closed). */
  readonly firstProbe: Promise<void>;
  /** The first failed probe of each upstream goes to `sink` (failures before the call at once). */
  onFirstProbeFailure(sink: FirstFailureSink): void;
  /** Runs one probe round now. */
  probeNow(): Promise<void>;
  /** Per upstream: ms since its last good answer (null: none yet) and whether it lags the best head. */
  goodAnswers(): Array<{ lastGoodAgoMs: number | null; lagging: boolean }>;
  /**
   * New base URLs, one per upstream in order (a reload; as many as before):
   * each changed one becomes a fresh upstream under the same name (new
   * breaker, latency and probes); the old one closes once its requests end.
   * Returns the names replaced.
   */
  replaceUrls(urls: readonly string[]): string[];
}

export function createUpstreamPool(opts: UpstreamPoolOptions): ManagedUpstreamPool {
  const { config, tracker } = opts;
  const metrics = opts.metrics ?? noopMetrics;
  if (opts.names && opts.names.length !== opts.urls.length)
    throw new Error('createUpstreamPool: names must match urls one to one');
  const make = (name: string, url: string): Upstream =>
    new Upstream({
      name,
      url,
      config,
      metrics,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.onShed ? { onShed: opts.onShed } : {}),
    });
  const urls = [...opts.urls];
  const upstreams = urls.map((url, i) => make(opts.names?.[i] ?? `u${i}`, url));
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  if (byName.size !== upstreams.length) throw new Error('createUpstreamPool: upstream names must be unique');
  const sitOuts = opts.sitOuts ?? null;
  const sittingOut = sitOuts === null ? null : (name: string): boolean => sitOuts.active(name);
  const prober = new Prober({
    upstreams,
    intervalMs: config.probeIntervalMs,
    tracker,
    logger: opts.logger,
    onRebase: opts.onRebase,
    sittingOut,
    watch: opts.watch ?? null,
    adopt: opts.adopt ?? null,
    confirm: opts.confirm ?? null,
    install: opts.install ?? null,
    duty: opts.duty ?? null,
  });
  // Per-request controllers, aborted on close (a long-lived signal is not fed to AbortSignal.any per request).
  const live = new Set<AbortController>();
  let closed = false;

  /**
   * Hedge when an attempt is slower than what the pool's *fastest* healthy
   * upstream usually achieves (its latency quantile, floored by hedgeAfterMs):
   * a slow upstream's own quantile would only grow with its slowness and delay
   * the hedge it needs ("The Tail at Scale").
   */
  const delayFor = (_name: string): number | null => {
    let best: number | null = null;
    for (const u of upstreams) {
      if (!u.healthy()) continue;
      const d = hedgeDelay(config, u.latency);
      if (d !== null && (best === null || d < best)) best = d;
    }
    return best ?? hedgeDelay(config, undefined);
  };

  const base = baseDispatch({
    upstreams: () => upstreams,
    selectOptions: (plan) => ({
      freshness: plan.req.freshness,
      bestHead: tracker.bestHead(),
      maxLagBlocks: config.maxLagBlocks,
      height: plan.req.height,
      finalHeight: tracker.finalHeight(),
      sittingOut,
    }),
  });
  const dispatch = composeDispatch(
    base,
    hedgeLayer({ delayFor, onHedge: (plan) => metrics.upstreamHedge(plan.req.endpoint) }),
    retryLayer({ onRetry: (plan) => metrics.upstreamRetry(plan.req.endpoint) }),
    confirmLayer({
      base,
      contradicted: (name, by) => byName.get(name)?.contradicted(`not-found contradicted by ${by}`),
    }),
  );

  /** Runs `work` under a fresh plan bounded by totalDeadlineMs (and aborted on close). */
  async function planned<T>(
    req: UpstreamRequest,
    tried: string[],
    maxAttempts: number,
    work: (plan: Plan) => Promise<T>,
  ): Promise<T> {
    if (closed) throw new ProxyError('SHUTTING_DOWN');
    const deadline = new AbortController();
    live.add(deadline);
    const timer = setTimeout(() => {
      deadline.abort(
        new ProxyError('UPSTREAM_TIMEOUT', undefined, {
          detail: `upstream deadline of ${config.totalDeadlineMs} ms exceeded`,
        }),
      );
    }, config.totalDeadlineMs);
    const signals = [deadline.signal, ...(req.signal ? [req.signal] : [])];
    const plan: Plan = {
      req,
      tried,
      maxAttempts,
      deadlineAt: performance.now() + config.totalDeadlineMs,
      signal: signals.length === 1 ? deadline.signal : AbortSignal.any(signals),
    };
    try {
      return await work(plan);
    } finally {
      clearTimeout(timer);
      live.delete(deadline);
    }
  }

  /** A benched upstream's row says so (rows of playing upstreams are unchanged). */
  const withBench = (row: UpstreamStatus): UpstreamStatus => {
    const bench = sitOuts?.state(row.name) ?? null;
    return bench === null ? row : { ...row, sittingOut: bench };
  };

  const fetch = (req: UpstreamRequest): Promise<UpstreamResponse> =>
    planned(req, [], Math.max(1, config.maxAttempts), (plan) => dispatch(plan, plan.signal));

  /** Each ballot goes to its own upstream: `base` records it in `plan.tried` before the next one picks. */
  const ballots = (req: UpstreamRequest, exclude: readonly string[], count: number) =>
    planned(req, [...exclude], exclude.length + count, async (plan) => {
      const runs: Promise<UpstreamResponse>[] = [];
      for (let i = 0; i < count; i++) {
        const before = plan.tried.length;
        const run = base(plan, plan.signal, { vote: true });
        if (plan.tried.length === before) {
          run.catch(() => {});
          break;
        }
        runs.push(run);
      }
      const settled = await Promise.allSettled(runs);
      const answers = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      return { answers, asked: plan.tried.slice(exclude.length) };
    });

  return {
    fetch,
    ballots,
    chain: tracker,
    status: () => upstreams.map((u) => withBench(u.status(tracker.bestHead(), config.maxLagBlocks))),
    ready: () =>
      upstreams.some(
        (u) => u.healthy() && u.fresh(tracker.bestHead(), config.maxLagBlocks) && sittingOut?.(u.name) !== true,
      ),
    goodAnswers: () =>
      upstreams.map((u) => ({
        lastGoodAgoMs: u.lastGoodAgoMs(),
        lagging: !u.fresh(tracker.bestHead(), config.maxLagBlocks) || sittingOut?.(u.name) === true,
      })),
    start: () => prober.start(),
    firstProbe: prober.firstRound,
    onFirstProbeFailure: (sink) => prober.onFirstFailure(sink),
    probeNow: () => prober.probeOnce(),
    replaceUrls(next) {
      if (next.length !== upstreams.length || closed) return [];
      const replaced: string[] = [];
      next.forEach((url, i) => {
        if (url === urls[i]) return;
        const old = upstreams[i]!;
        const fresh = make(old.name, url);
        urls[i] = url;
        upstreams[i] = fresh;
        byName.set(old.name, fresh);
        prober.replaced(old, fresh);
        old.retire();
        replaced.push(old.name);
      });
      return replaced;
    },
    async close() {
      prober.stop();
      closed = true;
      for (const c of live) c.abort(new ProxyError('SHUTTING_DOWN'));
      await Promise.all(upstreams.map((u) => u.close()));
    },
  };
}
