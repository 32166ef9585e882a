/**
 * Open-loop load at a fixed rate through the proxy, every answer judged against the truth at the
 * heads the chain had while it was in flight; tallies hits (X-Cache), stale answers per endpoint,
 * blocks behind, and the head detection delay (block produced → first `block/max` showing it).
 * `startDriver` sends each drawn request to several targets at the same instant (a paired
 * comparison: the same requests at the same heads) and runs until stopped, cut into windows.
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
}

export interface DriverOptions {
  /** Every drawn request goes to each of these (proxies or balancers) at the same instant. */
  targets: readonly string[];
  lock: Lockstep;
  sample: () => string;
  rate: number;
  /** Per target: a request is not sent to a target with this many in flight (counted as dropped). */
  maxInFlight?: number;
  connections?: number;
  /** Told of every judged answer and the index of the target that gave it. */
  onJudged?: (a: Judged, target: number) => void;
}

/** An open-loop load running until stopped, cut into windows. */
export interface Driver {
  /** Each target's tally since the last cut (or the start), and new ones begun; answers in flight count in those. */
  cut(): Tally[];
  /** Stops sending, waits for the answers in flight and returns the last cut. */
  stop(): Promise<Tally[]>;
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
  /** A stale answer: ms from the production of the first block it does not show to the answer; else null. */
  missedMs: number | null;
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

interface Target {
  pool: Pool;
  t: Tally;
  shownHead: number;
  inFlight: number;
}

export function startDriver(o: DriverOptions): Driver {
  const truth = new Truth(o.lock.truth.chain);
  const maxInFlight = o.maxInFlight ?? 256;
  const targets: Target[] = o.targets.map((url) => ({
    pool: new Pool(url, { connections: o.connections ?? 32, pipelining: 1 }),
    t: emptyTally(),
    shownHead: o.lock.head(),
    inFlight: 0,
  }));
  const pending = new Set<Promise<void>>();

  const headSeen = (x: Target, h: number, at: number): void => {
    for (let k = x.shownHead + 1; k <= h; k++) {
      const produced = o.lock.producedAt(k);
      if (produced !== null) x.t.headDelays.push(at - produced);
    }
    x.shownHead = Math.max(x.shownHead, h);
  };

  /** `path` to target k, sent when the head was `from`; its tally is the one current when it is answered. */
  const one = async (k: number, path: string, from: number): Promise<void> => {
    const x = targets[k]!;
    const sentAt = performance.now();
    const q = path.indexOf('?');
    const endpoint = (q < 0 ? path : path.slice(0, q)).slice(1);
    const search = q < 0 ? '' : path.slice(q + 1);
    let status: number;
    let body: Buffer;
    let cache: string;
    let upstream: string | undefined;
    try {
      const r = await x.pool.request({ path, method: 'GET' });
      status = r.statusCode;
      body = Buffer.from(await r.body.arrayBuffer());
      cache = String(r.headers['x-cache'] ?? '');
      const via = r.headers['x-upstream'];
      upstream = typeof via === 'string' ? via.split(',').at(-1)?.trim() : undefined;
    } catch {
      x.t.requests++;
      x.t.errors++;
      return;
    }
    const t = x.t;
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
      if (m !== null) headSeen(x, Number(m[1]), seenAt);
    }
    const v = truth.judge(endpoint, search, status, body, from, to);
    const missed = v.stale && v.behind !== null ? o.lock.producedAt(to - v.behind + 1) : null;
    o.onJudged?.(
      {
        endpoint,
        at: seenAt,
        stale: v.stale,
        ms: performance.now() - sentAt,
        upstream,
        missedMs: missed === null ? null : seenAt - missed,
      },
      k,
    );
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

  const send = (k: number, path: string, from: number): void => {
    const x = targets[k]!;
    if (x.inFlight >= maxInFlight) {
      x.t.dropped++;
      return;
    }
    x.inFlight++;
    const p: Promise<void> = one(k, path, from).finally(() => {
      x.inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  };

  const t0 = Date.now();
  let cutAt = t0;
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - t0) / 1000) * o.rate);
    for (; sent < due; sent++) {
      const path = o.sample();
      const from = o.lock.head();
      for (let k = 0; k < targets.length; k++) send(k, path, from);
    }
  }, 10);

  const cut = (): Tally[] => {
    const now = Date.now();
    const out = targets.map((x) => {
      const t = x.t;
      t.durationS = (now - cutAt) / 1000;
      x.t = emptyTally();
      return t;
    });
    cutAt = now;
    return out;
  };
  return {
    cut,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...pending]);
      const out = cut();
      await Promise.all(targets.map((x) => x.pool.close()));
      return out;
    },
  };
}

/** One target for `durationS`. */
export async function drive(o: DriveOptions): Promise<Tally> {
  const d = startDriver({ targets: [o.proxyUrl], lock: o.lock, sample: o.sample, rate: o.rate });
  await new Promise((resolve) => setTimeout(resolve, o.durationS * 1000));
  const [t] = await d.stop();
  return t!;
}
