/**
 * The truth: what the simulator answers for a request at a given head, compared with what the
 * proxy answered, without the volatile stamps the endpoint modules declare
 * (src/transform/stamps.ts) and without the host of `next`/`previous` links.
 */
import { SimChain, internalCreditsAt, runEndpoint, type Query } from '../../../src/sim/index.js';
import { findStamps } from '../../../src/transform/stamps.js';

const LINK_HOST = /"(next|previous)":"https?:\/\/[^/"]+\//g;

/** The body with every stamp replaced by 0 and link hosts dropped. */
export function normalizeBody(body: Buffer, endpoint: string): string {
  const stamps = findStamps(body, endpoint);
  let out = '';
  let at = 0;
  for (const s of stamps) {
    out += body.toString('utf8', at, s.start) + '0';
    at = s.end;
  }
  out += body.toString('utf8', at);
  return out.replace(LINK_HOST, '"$1":"/');
}

function parseQuery(search: string): Query {
  const q: Query = {};
  for (const [k, v] of new URLSearchParams(search)) {
    const prev = q[k];
    q[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return q;
}

export interface Verdict {
  stale: boolean;
  /** head at answer − the newest height whose truth matches; 0 when fresh, null when none matched within the search */
  behind: number | null;
}

export const BEHIND_SEARCH = 300;

export class Truth {
  private readonly chains = new Map<number, SimChain>();

  constructor(private readonly live: SimChain) {}

  /** Normalized truth for `endpoint?search` at head h (status and body). */
  answerAt(endpoint: string, search: string, h: number): string {
    const chain = h === this.live.head() ? this.live : this.snapshot(h);
    const r = runEndpoint(endpoint, parseQuery(search), { chain, nowMs: 0, baseUrl: '' });
    return r.status + ' ' + normalizeBody(Buffer.from(r.body), endpoint);
  }

  /**
   * Judges an answer given while the head went from `from` to `to` (both included): fresh when it
   * equals the truth at one of those heights, else stale, and how far behind.
   */
  judge(endpoint: string, search: string, status: number, body: Buffer, from: number, to: number): Verdict {
    const got = status + ' ' + normalizeBody(body, endpoint);
    for (let h = to; h >= from; h--) if (this.answerAt(endpoint, search, h) === got) return { stale: false, behind: 0 };
    for (let h = from - 1; h >= Math.max(1, from - BEHIND_SEARCH); h--) {
      if (this.answerAt(endpoint, search, h) === got) return { stale: true, behind: to - h };
    }
    return { stale: true, behind: null };
  }

  /**
   * Whether a stale `address/info?<search>` answer, matching the truth `behind` blocks before
   * `to` (null: none within the search), is of an address an internal transfer credited since:
   * paid by one of the blocks after the matched height, up to `to`.
   */
  creditedSince(search: string, behind: number | null, to: number): boolean {
    if (!this.live.internalTransfers) return false;
    const a = new URLSearchParams(search).get('address');
    if (a === null) return false;
    for (let h = to; h > to - (behind ?? BEHIND_SEARCH); h--)
      if (internalCreditsAt(this.live.seed, h).includes(a)) return true;
    return false;
  }

  private snapshot(h: number): SimChain {
    let c = this.chains.get(h);
    if (c === undefined) {
      const l = this.live;
      c = new SimChain({
        seed: l.seed,
        startHeight: h,
        finalityDepth: l.finalityDepth,
        blockIntervalMs: 0,
        genesisTime: l.genesisTime,
        internalTransfers: l.internalTransfers,
      });
      if (this.chains.size >= 2 * BEHIND_SEARCH) this.chains.delete(this.chains.keys().next().value!);
      this.chains.set(h, c);
    }
    return c;
  }
}
