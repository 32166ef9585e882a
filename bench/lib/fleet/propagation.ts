/**
 * How fast a block reaches every replica of a fleet: each replica is polled
 * directly (not through the balancer) every POLL_MS for `block/max` and
 * `block/list`; a replica serves block h once both answers show a height ≥ h.
 * Per block produced during the phase and served by every replica: the time
 * from its production to the last replica serving it, and from the first
 * replica serving it to the last. Resolution: the poll interval plus one
 * request's latency.
 */
import { Pool } from 'undici';
import type { Lockstep } from '../oracle/lockstep.js';

const POLL_MS = 25;
const PATHS = ['/block/max', '/block/list'];

export interface Propagation {
  /** ms, block produced → the last replica serving it */
  fromBlock: number[];
  /** ms, the first replica serving it → the last */
  fromFirst: number[];
  /** blocks produced during the phase */
  blocks: number;
  polls: number;
}

/** The newest height an answer shows (the largest `"height":N` in it); -1 when none. */
function newest(body: string): number {
  let max = -1;
  for (const m of body.matchAll(/"height":(\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

export async function measurePropagation(
  replicas: readonly string[],
  lock: Lockstep,
  durationS: number,
): Promise<Propagation> {
  const h0 = lock.head();
  const seen = new Map<number, number[]>(); // height → first time each replica served it
  const deadline = Date.now() + durationS * 1000;
  let polls = 0;
  const poll = async (url: string, i: number): Promise<void> => {
    const pool = new Pool(url, { connections: 2 });
    let served = h0;
    try {
      while (Date.now() < deadline) {
        const heights = await Promise.all(
          PATHS.map(async (p) => {
            const r = await pool.request({ path: p, method: 'GET' });
            const text = await r.body.text();
            return r.statusCode === 200 ? newest(text) : -1;
          }),
        );
        polls++;
        const now = Date.now();
        const h = Math.min(...heights);
        for (let k = served + 1; k <= h; k++) {
          const row = seen.get(k) ?? new Array<number>(replicas.length).fill(NaN);
          row[i] = now;
          seen.set(k, row);
        }
        served = Math.max(served, h);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      await pool.close();
    }
  };
  await Promise.all(replicas.map((u, i) => poll(u, i)));
  const fromBlock: number[] = [];
  const fromFirst: number[] = [];
  for (const [k, row] of seen) {
    const produced = lock.producedAt(k);
    if (produced === null || row.some((t) => Number.isNaN(t))) continue;
    fromBlock.push(Math.max(...row) - produced);
    fromFirst.push(Math.max(...row) - Math.min(...row));
  }
  return { fromBlock, fromFirst, blocks: lock.head() - h0, polls };
}

export const quantile = (xs: readonly number[], q: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
