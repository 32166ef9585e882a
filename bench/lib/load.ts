/** autocannon, programmatically, in the bench process. */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** seconds (ignored when amount is set) */
  duration?: number;
  amount?: number;
  /** fixed path; or a sampler called for every request */
  path?: string;
  sample?: () => string;
  /** seconds before a request counts as a timeout */
  timeout?: number;
  pipelining?: number;
  /** Offered load, requests per second over all connections (default: as fast as answered). */
  rate?: number;
  /** Request headers (e.g. Accept-Encoding). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationS: number;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const opts: autocannon.Options = {
    url: o.url,
    connections: o.connections,
    pipelining: o.pipelining ?? 1,
    timeout: o.timeout ?? 10,
    ...(o.amount !== undefined ? { amount: o.amount } : { duration: o.duration ?? 5 }),
    ...(o.rate !== undefined ? { overallRate: o.rate } : {}),
    ...(o.headers !== undefined ? { headers: o.headers } : {}),
  };
  if (o.sample !== undefined) {
    const sample = o.sample;
    opts.requests = [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: sample() }),
      },
    ];
  } else if (o.path !== undefined) {
    opts.url = o.url + o.path;
  }
  const t0 = Date.now();
  const r = await autocannon(opts);
  const durationS = (Date.now() - t0) / 1000;
  const total = r.requests.total;
  return {
    // Mean over the run (autocannon's per-second average drops a trailing partial second).
    rps: total / Math.max(durationS, 0.001),
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    durationS,
  };
}
