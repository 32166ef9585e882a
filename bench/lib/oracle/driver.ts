/**
 * Open-loop load at a fixed rate through the proxy, every answer judged against the truth at the
 * heads the chain had while it was in flight; tallies hits (X-Cache), stale answers per endpoint,
 * blocks behind, and the head detection delay (block produced → first `block/max` showing it).
 */
import { Pool } from 'undici';
import type { Lockstep } from './lockstep.js';
import { Truth } from './truth.js';

interface EndpointTally {
  requests: number;
  stale: number;
  /** most blocks behind among its stale answers; null when one matched no height searched */
  maxBehind: number | null;
}

export interface Tally {
  requests: number;
  hits: number;
  /** answers not judged: status ≥ 500 or a transport error */
  errors: number;
  /** requests not sent because too many were in flight */
  dropped: number;
  stale: number;
  /** stale answers that matched no height within the search */
  unmatched: number;
  maxBehind: number;
  /** stale address/info answers of an address an internal transfer credited since the answer's height */
  staleCredited: number;
  byEndpoint: Map<string, EndpointTally>;
  /** ms from a block's production to the first block/max answer showing it (or a later one) */
  headDelays: number[];
  /** client latency per answered request, ms */
  latencies: number[];
  durationS: number;
}

export interface DriveOptions {
  proxyUrl: string;
  lock: Lockstep;
  sample: () => string;
  rate: number;
  durationS: number;
  maxInFlight?: number;
  connections?: number;
  /** Told of every judged answer: when (Date.now()), whether stale, and the balancer's `x-upstream` if any. */
  onJudged?: (a: Judged) => void;
}

/** One judged answer, for a scenario that attributes stale answers (bench (l)). */
export interface Judged {
  endpoint: string;
  at: number;
  stale: boolean;
  /** Client latency, ms. */
  ms: number;
  /** The replica that answered (the last address of nginx's `$upstream_addr`), when the balancer says. */
  upstream: string | undefined;
}

function emptyTally(): Tally {
  return {
    requests: 0,
    hits: 0,
    errors: 0,
    dropped: 0,
    stale: 0,
    unmatched: 0,
    maxBehind: 0,
    staleCredited: 0,
    byEndpoint: new Map(),
    headDelays: [],
    latencies: [],
    durationS: 0,
  };
}

export async function drive(o: DriveOptions): Promise<Tally> {
  const truth = new Truth(o.lock.truth.chain);
  const pool = new Pool(o.proxyUrl, { connections: o.connections ?? 32, pipelining: 1 });
  const t = emptyTally();
  let shownHead = o.lock.head();
  const maxInFlight = o.maxInFlight ?? 256;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();

  const one = async (path: string): Promise<void> => {
    const from = o.lock.head();
    const sentAt = performance.now();
    const q = path.indexOf('?');
    const endpoint = (q < 0 ? path : path.slice(0, q)).slice(1);
    const search = q < 0 ? '' : path.slice(q + 1);
    let status: number;
    let body: Buffer;
    let cache: string;
    let upstream: string | undefined;
    try {
      const r = await pool.request({ path, method: 'GET' });
      status = r.statusCode;
      body = Buffer.from(await r.body.arrayBuffer());
      cache = String(r.headers['x-cache'] ?? '');
      const via = r.headers['x-upstream'];
      upstream = typeof via === 'string' ? via.split(',').at(-1)?.trim() : undefined;
    } catch {
      t.requests++;
      t.errors++;
      return;
    }
    const to = o.lock.head();
    const seenAt = Date.now();
    t.latencies.push(performance.now() - sentAt);
    t.requests++;
    if (cache === 'HIT' || cache === 'STALE') t.hits++;
    if (status >= 500) {
      t.errors++;
      return;
    }
    if (endpoint === 'block/max' && status === 200) {
      const m = /"height":(\d+)/.exec(body.toString());
      if (m !== null) headSeen(Number(m[1]), seenAt);
    }
    const v = truth.judge(endpoint, search, status, body, from, to);
    o.onJudged?.({ endpoint, at: seenAt, stale: v.stale, ms: performance.now() - sentAt, upstream });
    const e = t.byEndpoint.get(endpoint) ?? { requests: 0, stale: 0, maxBehind: 0 };
    e.requests++;
    if (v.stale) {
      t.stale++;
      e.stale++;
      if (endpoint === 'address/info' && truth.creditedSince(search, v.behind, to)) t.staleCredited++;
      if (v.behind === null) {
        t.unmatched++;
        e.maxBehind = null;
      } else {
        t.maxBehind = Math.max(t.maxBehind, v.behind);
        if (e.maxBehind !== null) e.maxBehind = Math.max(e.maxBehind, v.behind);
      }
    }
    t.byEndpoint.set(endpoint, e);
  };

  const headSeen = (h: number, at: number): void => {
    for (let k = shownHead + 1; k <= h; k++) {
      const produced = o.lock.producedAt(k);
      if (produced !== null) t.headDelays.push(at - produced);
    }
    shownHead = Math.max(shownHead, h);
  };

  const t0 = Date.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (Date.now() - t0) / 1000;
      if (elapsed >= o.durationS) {
        clearInterval(timer);
        resolve();
        return;
      }
      const due = Math.floor(elapsed * o.rate);
      for (; sent < due; sent++) {
        if (inFlight >= maxInFlight) {
          t.dropped++;
          continue;
        }
        inFlight++;
        const p: Promise<void> = one(o.sample()).finally(() => {
          inFlight--;
          pending.delete(p);
        });
        pending.add(p);
      }
    }, 10);
  });
  await Promise.all([...pending]);
  t.durationS = (Date.now() - t0) / 1000;
  await pool.close();
  return t;
}
