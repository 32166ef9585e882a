/**
 * The universe crawl: every path the workload can draw, requested once through the proxy, as
 * fast as a bounded pool allows. A front door that has served the workload for days has seen
 * every one of them: after the crawl, old details are cached and every URL has a last answer,
 * so an upstream request of the measured window is `first` only for a URL new to the chain.
 */
import { Pool } from 'undici';

export interface Crawl {
  requests: number;
  /** status ≥ 500 or a transport error */
  errors: number;
  seconds: number;
}

export async function crawl(proxyUrl: string, paths: readonly string[], concurrency = 32): Promise<Crawl> {
  const pool = new Pool(proxyUrl, { connections: concurrency, pipelining: 1 });
  const t0 = performance.now();
  let next = 0;
  let errors = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++]!;
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
