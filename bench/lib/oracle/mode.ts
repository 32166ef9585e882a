/**
 * One oracle run: a lockstep pair of simulators, the recording wrapper in front of the upstream,
 * a chainproxy child process (default settings, `INVALIDATION_MODE` set), then the phases: a cold
 * window (a fresh proxy under the workload, measured apart), the universe crawl, a warm-up, and
 * the measured (steady-state) window.
 */
import { loadConfig } from '../../../src/config/load.js';
import { FIELDS } from '../../../src/config/fields.js';
import { startProxyProc } from '../proxy.js';
import { crawl, type Crawl } from './crawl.js';
import { drive, type Tally } from './driver.js';
import { startLockstep, type Lockstep } from './lockstep.js';
import { startRecorder, type Recorder, type RecorderCounts } from './recorder.js';
import { buildUniverse, explorerSampler, universePaths } from './workload.js';

export type InvalidationMode = 'precise' | 'head';

/** What one driven window saw: the client side and the upstream side. */
export interface Window {
  tally: Tally;
  recorder: RecorderCounts;
  blocks: number;
  /** internal transfers paid by the window's blocks; null when the chains pay none */
  internalCredits: number | null;
  /** the proxy's unchanged refetches in the window by endpoint and what ended the entry (precise mode; else null) */
  ended: Ended | null;
}

type Ended = Record<string, Record<string, number>>;

/** The proxy's count of unchanged refetches by what ended the entry (`/status`), null when it has none. */
async function endedCounts(proxyUrl: string): Promise<Ended | null> {
  try {
    const res = await fetch(`${proxyUrl}/status`);
    const body = (await res.json()) as { data?: { cache?: { invalidation?: { unchangedRefetches?: Ended } } } };
    return body.data?.cache?.invalidation?.unchangedRefetches ?? null;
  } catch {
    return null;
  }
}

/** `b` − `a`, per endpoint and reason. */
function endedIn(a: Ended | null, b: Ended | null): Ended | null {
  if (a === null || b === null) return null;
  const out: Ended = {};
  for (const [endpoint, by] of Object.entries(b))
    for (const [why, n] of Object.entries(by)) {
      const d = n - (a[endpoint]?.[why] ?? 0);
      if (d > 0) (out[endpoint] ??= {})[why] = d;
    }
  return out;
}

export interface ModeRun {
  mode: InvalidationMode;
  /** false when this build does not know INVALIDATION_MODE (then it runs today's rule) */
  honoured: boolean;
  blockIntervalMs: number;
  /** the first seconds of a fresh proxy (before the crawl); null when not run */
  cold: Window | null;
  crawl: Crawl;
  /** the measured window, after the crawl and the warm-up */
  window: Window;
  /** `first` upstream requests per second, by 10 s from the crawl's end to the window's end */
  firstRate: number[];
  /** longest the proxy keeps an untouched entry by its tags (ms): the warm-up must outlast it */
  maxAgeMs: number;
}

export interface ModeOptions {
  mode: InvalidationMode;
  blockIntervalMs: number;
  /** seconds of the cold window; 0: none */
  coldS: number;
  warmS: number;
  /** Spread the crawl evenly over the warm-up (running beside it) instead of crawling before it. */
  spread?: boolean;
  /** With `spread`: the crawl spread over the warm-up's first this many seconds (default: all of it). */
  crawlS?: number;
  durationS: number;
  rate: number;
  seed?: number;
  /** block interval jitter (fraction) */
  jitter?: number;
  /** the chains pay internal transfers no block names (default true; `--oracle-no-internal`) */
  internalTransfers?: boolean;
  log?: (m: string) => void;
}

export const modeHonoured = (): boolean => FIELDS.some((f) => f.env === 'INVALIDATION_MODE');

const FIRST_BUCKET_S = 10;

/** Per second, by FIRST_BUCKET_S from `from` to `to` (the last bucket takes the remainder, by its own length). */
function firstRate(times: readonly number[], from: number, to: number): number[] {
  const span = FIRST_BUCKET_S * 1000;
  const counts = new Array<number>(Math.max(1, Math.round((to - from) / span))).fill(0);
  const last = counts.length - 1;
  for (const t of times) if (t >= from && t < to) counts[Math.min(last, Math.floor((t - from) / span))]!++;
  return counts.map((n, i) => n / ((i === last ? to - from - i * span : span) / 1000));
}

async function measure(
  lock: Lockstep,
  recorder: Recorder,
  proxyUrl: string,
  run: () => Promise<Tally>,
): Promise<Window> {
  const e0 = await endedCounts(proxyUrl);
  recorder.take();
  const h0 = lock.head();
  const tally = await run();
  const h1 = lock.head();
  return {
    tally,
    recorder: recorder.take(),
    blocks: h1 - h0,
    internalCredits: lock.internalTransfers ? lock.creditsIn(h0, h1) : null,
    ended: endedIn(e0, await endedCounts(proxyUrl)),
  };
}

export async function runMode(o: ModeOptions): Promise<ModeRun> {
  const lock = await startLockstep({
    blockIntervalMs: o.blockIntervalMs,
    jitter: o.jitter ?? 0,
    internalTransfers: o.internalTransfers ?? true,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  });
  const recorder = await startRecorder(lock.upstream.url);
  const env = { INVALIDATION_MODE: o.mode };
  const cfg = loadConfig({ ...env, UPSTREAM_URLS: recorder.url }); // the setting is checked like the proxy will
  const maxAgeMs = Math.max(
    cfg.invalidation.maxAgeMs,
    cfg.invalidation.listMaxAgeMs,
    ...Object.values(cfg.invalidation.maxAgeByEndpoint).map((v) => v ?? 0),
  );
  const proxy = await startProxyProc([recorder.url], env, `proxy-${o.mode}`);
  const log = (m: string): void => o.log?.(`${o.mode} ${o.blockIntervalMs} ms: ${m}`);
  try {
    lock.start();
    const u = buildUniverse(lock.seed, lock.head());
    const sample = explorerSampler(u, () => lock.head());
    const load = (durationS: number) => (): Promise<Tally> =>
      drive({ proxyUrl: proxy.url, lock, sample, rate: o.rate, durationS });
    let cold: Window | null = null;
    if (o.coldS > 0) {
      log(`cold window ${o.coldS} s`);
      cold = await measure(lock, recorder, proxy.url, load(o.coldS));
    }
    log('crawling the universe');
    let crawled: Crawl;
    if (o.spread === true) {
      const crawlS = Math.min(o.crawlS ?? o.warmS, o.warmS);
      log(`warm-up ${o.warmS} s with the universe crawl spread over its first ${crawlS} s`);
      [crawled] = await Promise.all([
        crawl(
          proxy.url,
          universePaths(u, () => lock.head()),
          32,
          crawlS,
        ),
        load(o.warmS)(),
      ]);
    } else {
      crawled = await crawl(
        proxy.url,
        universePaths(u, () => lock.head()),
      );
      log(`crawled ${crawled.requests} paths in ${crawled.seconds.toFixed(1)} s; warm-up ${o.warmS} s`);
      await load(o.warmS)();
    }
    const crawledAt = Date.now();
    log(`measuring ${o.durationS} s`);
    const window = await measure(lock, recorder, proxy.url, load(o.durationS));
    return {
      mode: o.mode,
      honoured: modeHonoured(),
      blockIntervalMs: o.blockIntervalMs,
      cold,
      crawl: crawled,
      window,
      firstRate: firstRate(recorder.firstTimes(), crawledAt, Date.now()),
      maxAgeMs,
    };
  } finally {
    await proxy.close();
    await recorder.close();
    await lock.close();
  }
}
