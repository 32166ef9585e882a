/**
 * Probes every upstream with GET /block/max on an interval: records its head,
 * latency and health, drives its breaker (a probe holding the half-open
 * trial closes or reopens it; while the breaker is open and cooling down the
 * probe still runs, for head and health, without touching the breaker), and
 * feeds the tracker, whose best head is monotonic. A frozen backend keeps
 * answering, so it stays healthy but its lag grows.
 */
import type { Logger } from 'pino';
import type { ChainTracker } from '../chain/tracker.js';
import type { Upstream } from './upstream.js';

/** `data.height` of a block/max answer; the number may be written `4842503.0` (or quoted). */
export function parseHeight(json: Record<string, unknown>): number | null {
  const data = json['data'];
  if (typeof data !== 'object' || data === null) return null;
  const raw = (data as Record<string, unknown>)['height'];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) return null;
  const h = Math.trunc(n);
  return Number.isSafeInteger(h) ? h : null;
}

export interface ProberOptions {
  upstreams: readonly Upstream[];
  intervalMs: number;
  tracker: ChainTracker;
  logger?: Logger | undefined;
}

export class Prober {
  readonly #o: ProberOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #resolveFirst!: () => void;
  /** Resolves when the first round started by `start()` (or `probeOnce()`) has completed. Never rejects. */
  readonly firstRound: Promise<void>;

  constructor(o: ProberOptions) {
    this.#o = o;
    this.firstRound = new Promise((resolve) => (this.#resolveFirst = resolve));
  }

  /** One probe round over every upstream, in parallel. Never rejects. */
  async probeOnce(): Promise<void> {
    await Promise.all(this.#o.upstreams.map((u) => this.#probe(u)));
    this.#resolveFirst();
  }

  async #probe(u: Upstream): Promise<void> {
    const was = u.probeOk;
    try {
      const res = await u.run({
        path: '/block/max',
        endpoint: null,
        gated: false,
        attempt: 1,
        acceptKind: 'UPSTREAM_BAD_RESPONSE',
        accept: (r) => (r.status >= 200 && r.status < 300 && parseHeight(r.json) !== null ? null : `probe: block/max answered ${r.status} without a height`),
      });
      const height = parseHeight(res.json);
      if (height !== null) {
        u.head = height;
        this.#o.tracker.observeHead(height);
      }
      u.probeOk = true;
    } catch {
      u.probeOk = false; // Upstream.run recorded lastError
    }
    if (was !== u.probeOk && this.#o.logger) {
      const fields = { upstream: u.name, url: u.url, head: u.head, lastError: u.lastError };
      if (u.probeOk) this.#o.logger.info(fields, 'upstream probe ok');
      else this.#o.logger.warn(fields, 'upstream probe failed');
    }
  }

  /** Runs a round now, then one every intervalMs after the previous round ends (rounds never overlap). */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    const loop = (): void => {
      void this.probeOnce().then(() => {
        if (this.#stopped) return;
        this.#timer = setTimeout(loop, this.#o.intervalMs);
        this.#timer.unref();
      });
    };
    this.#timer = setTimeout(loop, 0);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#resolveFirst();
  }
}
