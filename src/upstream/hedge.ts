/**
 * Hedge layer: when the attempt just launched has not answered after
 * `delayFor(upstream)` ms, launch one more attempt on another (untried,
 * fresh) upstream. The first good answer wins and the other attempt is
 * aborted (its upstream counts it 'cancelled'). A failure while the other
 * attempt is still running is not final: the layer waits for the other; it
 * rejects only when every launched attempt has failed (with the last error).
 */
import { hedgeLost } from './hedge-loss.js';
import { ProxyError } from '../errors/catalog.js';
import { budgetLeft, type Layer, type Plan } from './dispatch.js';
import type { UpstreamResponse } from './types.js';
import type { UpstreamConfig } from '../config/types.js';
import type { LatencyStats } from './latency.js';

export interface HedgeOptions {
  /** Delay before hedging an attempt on `upstream`; null disables hedging. */
  delayFor: (upstream: string) => number | null;
  onHedge?: (plan: Plan) => void;
}

/** Samples needed before the hedge delay follows the latency quantile. */
const QUANTILE_MIN_SAMPLES = 16;

/**
 * Delay before hedging an attempt on an upstream with these latency stats:
 * null when hedging is off (hedgeAfterMs 0); hedgeAfterMs; or, when
 * hedgeQuantile > 0 and there are enough samples, that latency quantile
 * floored at hedgeAfterMs (so a uniformly fast pool does not hedge everything).
 */
export function hedgeDelay(
  config: Pick<UpstreamConfig, 'hedgeAfterMs' | 'hedgeQuantile'>,
  stats: LatencyStats | undefined,
): number | null {
  if (config.hedgeAfterMs <= 0) return null;
  if (config.hedgeQuantile > 0 && stats && stats.samples >= QUANTILE_MIN_SAMPLES) {
    return Math.max(config.hedgeAfterMs, stats.quantile(config.hedgeQuantile) ?? 0);
  }
  return config.hedgeAfterMs;
}

export function hedgeLayer(o: HedgeOptions): Layer {
  return (next) => (plan, signal) => {
    const controllers: AbortController[] = [];
    const launch = (hedge: boolean): Promise<UpstreamResponse> | null => {
      const ctl = new AbortController();
      const before = plan.tried.length;
      const p = next(plan, AbortSignal.any([signal, ctl.signal]), { hedge });
      if (plan.tried.length === before) {
        if (!hedge) return p; // nothing launched: let the caller see why
        p.catch(() => {});
        return null;
      }
      controllers.push(ctl);
      return p;
    };

    const primary = launch(false);
    if (primary === null) return Promise.reject(new ProxyError('UPSTREAM_UNAVAILABLE'));
    const name = plan.tried.at(-1);
    const delay = controllers.length === 0 || name === undefined ? null : o.delayFor(name);
    if (delay === null) return primary;

    return new Promise<UpstreamResponse>((resolve, reject) => {
      let pending = 0;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const track = (p: Promise<UpstreamResponse>, index: number) => {
        pending++;
        p.then(
          (res) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            controllers.forEach((c, i) => i !== index && c.abort(hedgeLost()));
            resolve(res);
          },
          (err: unknown) => {
            pending--;
            if (settled || pending > 0) return;
            settled = true;
            clearTimeout(timer);
            reject(err);
          },
        );
      };
      track(primary, 0);
      timer = setTimeout(() => {
        if (settled || !budgetLeft(plan)) return;
        const hedged = launch(true);
        if (hedged === null) return;
        o.onHedge?.(plan);
        track(hedged, controllers.length - 1);
      }, delay);
    });
  };
}
