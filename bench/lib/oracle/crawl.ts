/**
 * The universe crawl: every path the workload can draw, requested once through the proxy, as
 * fast as a bounded pool allows. A front door that has served the workload for days has seen
 * every one of them: after the crawl, old details are cached and every URL has a last answer,
 * so an upstream request of the measured window is `first` only for a URL new to the chain.
 * With `spreadS`, the paths go out one by one at an even pace over that many seconds (in a
 * shuffled order): the entries' ages are then spread like a long-running proxy's, so safety
 * bounds expire across the window rather than all at once.
 */
import { Pool } from 'undici';

export interface Crawl {
  requests: number;
  /** status ≥ 500 or a transport error */
  errors: number;
  seconds: number;
}

export async function crawl(proxyUrl: string, paths: readonly string[], concurrency = 32, spreadS = 0): Promise<Crawl> {
  const pool = new Pool(proxyUrl, { connections: concurrency, pipelining: 1 });
  const t0 = performance.now();
  const order = spreadS > 0 ? shuffled(paths) : paths;
  const gapMs = spreadS > 0 ? (spreadS * 1000) / Math.max(1, order.length) : 0;
  let next = 0;
  let errors = 0;
  const worker = async (): Promise<void> => {
    while (next < order.length) {
      const i = next++;
      const path = order[i]!;
      const due = t0 + i * gapMs - performance.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
      try {
        const r = await pool.request({ path, method: 'GET' });
        await r.body.dump();
        if (r.statusCode >= 500) errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return { requests: paths.length, errors, seconds: (performance.now() - t0) / 1000 };
}

/** A fixed pseudo-random order (the same every run). */
function shuffled(paths: readonly string[]): string[] {
  const out = [...paths];
  let seed = 1;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
