/**
 * One oracle run: a lockstep pair of simulators, the recording wrapper in front of the upstream,
 * a chainproxy child process (default settings, `INVALIDATION_MODE` set), a warm-up, then the
 * measured window.
 */
import { loadConfig } from '../../../src/config/load.js';
import { FIELDS } from '../../../src/config/fields.js';
import { startProxyProc } from '../proxy.js';
import { drive, type Tally } from './driver.js';
import { startLockstep } from './lockstep.js';
import { startRecorder, type RecorderCounts } from './recorder.js';
import { buildUniverse, explorerSampler } from './workload.js';

export type InvalidationMode = 'precise' | 'head';

export interface ModeRun {
  mode: InvalidationMode;
  /** false when this build does not know INVALIDATION_MODE (then it runs today's rule) */
  honoured: boolean;
  blockIntervalMs: number;
  tally: Tally;
  /** simulator API requests during the window (health probes included) */
  upstream: number;
  upstreamByEndpoint: Record<string, number>;
  recorder: RecorderCounts;
  blocks: number;
}

export interface ModeOptions {
  mode: InvalidationMode;
  blockIntervalMs: number;
  warmS: number;
  durationS: number;
  rate: number;
  seed?: number;
  /** block interval jitter (fraction) */
  jitter?: number;
  log?: (m: string) => void;
}

export const modeHonoured = (): boolean => FIELDS.some((f) => f.env === 'INVALIDATION_MODE');

export async function runMode(o: ModeOptions): Promise<ModeRun> {
  const lock = await startLockstep({ blockIntervalMs: o.blockIntervalMs, jitter: o.jitter ?? 0, ...(o.seed !== undefined ? { seed: o.seed } : {}) });
  const recorder = await startRecorder(lock.upstream.url);
  const env = { INVALIDATION_MODE: o.mode };
  loadConfig({ ...env, UPSTREAM_URLS: recorder.url }); // the setting is checked like the proxy will
  const proxy = await startProxyProc([recorder.url], env, `proxy-${o.mode}`);
  try {
    lock.start();
    const u = buildUniverse(lock.seed, lock.head());
    const sample = explorerSampler(u, () => lock.head());
    o.log?.(`${o.mode} ${o.blockIntervalMs} ms: warm-up ${o.warmS} s`);
    await drive({ proxyUrl: proxy.url, lock, sample, rate: o.rate, durationS: o.warmS });
    recorder.reset();
    const s0 = lock.upstream.stats();
    const h0 = lock.head();
    o.log?.(`${o.mode} ${o.blockIntervalMs} ms: measuring ${o.durationS} s`);
    const tally = await drive({ proxyUrl: proxy.url, lock, sample, rate: o.rate, durationS: o.durationS });
    const s1 = lock.upstream.stats();
    const upstreamByEndpoint: Record<string, number> = {};
    for (const [k, v] of Object.entries(s1)) if (!k.startsWith('_') && v - (s0[k] ?? 0) > 0) upstreamByEndpoint[k] = v - (s0[k] ?? 0);
    return {
      mode: o.mode,
      honoured: modeHonoured(),
      blockIntervalMs: o.blockIntervalMs,
      tally,
      upstream: (s1._total ?? 0) - (s0._total ?? 0),
      upstreamByEndpoint,
      recorder: recorder.counts(),
      blocks: lock.head() - h0,
    };
  } finally {
    await proxy.close();
    await recorder.close();
    await lock.close();
  }
}
