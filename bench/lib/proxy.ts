/**
 * chainproxy as a child process (`node --import tsx src/main.ts`), configured by
 * environment variables like in production: quiet logs, rate limit off.
 */
import { contextFrameFlags } from '../../src/startup/context-frame.js';
import { tracingConfigured } from '../../src/tracing/tracing.js';
import { NODE_TSX, freePort, spawnChild, waitForHttp, type Child } from './proc.js';

export type CacheCounts = Record<'HIT' | 'MISS' | 'STALE' | 'BYPASS' | 'ERROR', number>;

export interface ProxyProc {
  url: string;
  child: Child;
  /** chainproxy_requests_total summed by cache result (API endpoints only). */
  cacheCounts(): Promise<CacheCounts>;
  /** A metric's samples summed over every label set (0 when absent). */
  metricSum(name: string): Promise<number>;
  close(): Promise<void>;
}

export const PROBE_INTERVAL_MS = 1000;

export async function startProxyProc(
  upstreams: string[],
  env: Record<string, string> = {},
  name = 'proxy',
  /** How long /healthz may take to answer (a start on a loaded machine). */
  startMs = 20_000,
): Promise<ProxyProc> {
  // `env.PORT`: a port of the caller's choosing (a replica restarted in place).
  const port = env['PORT'] !== undefined ? Number(env['PORT']) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  // What the launcher adds for a traced server on Node.js 22 (src/startup/context-frame.ts).
  const frame = contextFrameFlags(tracingConfigured(env), [], process.env['NODE_OPTIONS']);
  const child = spawnChild(name, NODE_TSX[0], [...NODE_TSX.slice(1), ...frame, 'src/main.ts'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URLS: upstreams.join(','),
    PUBLIC_BASE_URL: url,
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'off',
    RATE_LIMIT_ENABLED: 'false',
    UPSTREAM_PROBE_INTERVAL_MS: String(PROBE_INTERVAL_MS),
    NODE_ENV: 'production',
    ...env,
  });
  await waitForHttp(`${url}/healthz`, child, startMs);
  // Ready = an upstream probed healthy; go on after a while anyway (the result shows it).
  await waitForHttp(`${url}/readyz`, child, 8000).catch(() => undefined);
  return {
    url,
    child,
    cacheCounts: () => cacheCounts(url),
    metricSum: (name) => metricSum(url, name),
    close: () => child.stop(),
  };
}

async function cacheCounts(url: string): Promise<CacheCounts> {
  const r = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  const out: CacheCounts = { HIT: 0, MISS: 0, STALE: 0, BYPASS: 0, ERROR: 0 };
  const re = /^chainproxy_requests_total\{([^}]*)\} ([0-9.e+]+)$/gm;
  for (const m of text.matchAll(re)) {
    const labels = m[1]!;
    if (labels.includes('endpoint="other"')) continue;
    const c = /cache="([A-Z]+)"/.exec(labels)?.[1] as keyof CacheCounts | undefined;
    if (c !== undefined && c in out) out[c] += Number(m[2]);
  }
  return out;
}

async function metricSum(url: string, name: string): Promise<number> {
  const r = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest.startsWith('{') || rest.startsWith(' ')) sum += Number(rest.slice(rest.lastIndexOf(' ') + 1));
  }
  return sum;
}

export function diffCounts(a: CacheCounts, b: CacheCounts): CacheCounts {
  return {
    HIT: b.HIT - a.HIT,
    MISS: b.MISS - a.MISS,
    STALE: b.STALE - a.STALE,
    BYPASS: b.BYPASS - a.BYPASS,
    ERROR: b.ERROR - a.ERROR,
  };
}

/** Hits (fresh or stale, both answered without waiting for the upstream) / all. */
export function hitRatio(c: CacheCounts): number | null {
  const all = c.HIT + c.MISS + c.STALE + c.BYPASS + c.ERROR;
  return all === 0 ? null : (c.HIT + c.STALE) / all;
}
