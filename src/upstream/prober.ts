/**
 * Probes every upstream with GET /block/max, each on its own timer (a hanging
 * upstream delays no other): records its head, latency and health, drives its
 * breaker (a probe holding the half-open trial closes or reopens it; while the
 * breaker is open and cooling down the probe still runs, for head and health,
 * without touching the breaker), and reports the head to the tracker, which
 * believes it within bounds (chain/head-trust.ts); a benched upstream's heads
 * (sit-out.ts) are not reported. A frozen backend keeps
 * answering, so it stays healthy but its lag grows. With a HeadWatch the delay
 * between probes follows the block interval (cadence.ts: dense around the
 * expected next block, sparse otherwise).
 *
 * In a fleet (a ProbeDuty, src/fleet/duty.ts) only the leader probes after the
 * first round; a follower keeps its loops but skips each probe while the
 * leader is heard, takes each upstream's head and probe result from the
 * leader's 'heads' (selection, readiness and follow-down use them), and probes
 * itself (counted) while the leader is silent.
 *
 * Follow-down: when every upstream that answers its probes (benched ones aside) has reported a head
 * below the trusted one for `followDownRounds` probe intervals, the tracker is
 * rebased to the highest of them (logged, and `onRebase` for the metric)
 * instead of wedging on a head nobody serves any more.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChainTracker } from '../chain/tracker.js';
import { toProxyError, type ProxyError } from '../errors/catalog.js';
import { isSuccessEnvelope } from '../transform/envelope.js';
import type { RunOptions, Upstream } from './upstream.js';
import type { UpstreamResponse } from './types.js';
import type { HeadWatch } from './head-watch.js';
import type { UpstreamHead } from '../fleet/messages.js';

/** `data.height` of a block/max answer; the number may be written `4842503.0` (or quoted). */
export function parseHeight(json: Record<string, unknown>): number | null {
  const data = json['data'];
  if (typeof data !== 'object' || data === null) return null;
  const raw = (data as Record<string, unknown>)['height'];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) return null;
  const h = Math.trunc(n);
  return Number.isSafeInteger(h) ? h : null;
}

/**
 * Pure: the height to follow down to, or null (some upstream still reports the trusted head or more, or none answers).
 */
export function followDownTarget(best: number | null, heads: readonly (number | null)[]): number | null {
  if (best === null) return null;
  let top: number | null = null;
  for (const h of heads) {
    if (h === null) continue;
    if (h >= best) return null;
    if (top === null || h > top) top = h;
  }
  return top;
}

/** The probe: GET <base>/block/max, a success envelope with a height, nothing else. */
export const PROBE_PATH = '/block/max';
export const PROBE: RunOptions = {
  path: PROBE_PATH,
  endpoint: null,
  gated: false,
  attempt: 1,
  purpose: 'probe',
  acceptKind: 'UPSTREAM_BAD_RESPONSE',
  accept: (r) => {
    if (r.status < 200 || r.status >= 300 || parseHeight(r.json) === null)
      return `probe: block/max answered ${r.status} without a height`;
    return isSuccessEnvelope(r.status, r.json) ? null : 'probe: block/max answer is not a success envelope';
  },
};

/** The prober's view of the fleet's division of work (src/fleet/duty.ts). */
export interface ProbeDuty {
  /** 'leader' and 'alone' probe; 'follower' skips the probe. */
  turn(): 'leader' | 'follower' | 'alone';
  /** A probe made while 'alone'. */
  selfProbe(): void;
  /** After each probe of this replica: every upstream's head and last probe result, and the block intervals, now. */
  probed(snapshot: () => UpstreamHead[], intervals: () => number[]): void;
  /** The leader's heads (and block intervals, if it sent them) reach `apply` while this replica follows. */
  onHeads(apply: (heads: UpstreamHead[], intervals: number[] | undefined) => void): void;
}

/**
 * A leader's shared probe answer as an upstream response of `name` at `head` (null: not a JSON object, or not
 * showing `head`: an answer is never installed at a head it does not show).
 */
export function followedAnswer(name: string, body: string, head: number): UpstreamResponse | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  if (parseHeight(json as Record<string, unknown>) !== head) return null;
  const res = { status: 200, body: Buffer.from(body), json: json as Record<string, unknown>, upstream: name };
  return { ...res, durationMs: 0, attempts: 0, head };
}

/** An upstream's id on the bus: a digest of its URL (credentials removed), the same on every replica. */
function upstreamId(url: string): string {
  return createHash('sha1').update(url).digest('base64url').slice(0, 12);
}

/** Sees the first failed probe of each upstream (its base URL and why). */
export type FirstFailureSink = (url: string, err: ProxyError) => void;

export interface ProberOptions {
  upstreams: readonly Upstream[];
  intervalMs: number;
  tracker: ChainTracker;
  logger?: Logger | undefined;
  /** Probe intervals every upstream must stay below the trusted head before it is lowered (default 3). */
  followDownRounds?: number;
  onRebase?: ((from: number, to: number) => void) | undefined;
  /** A benched upstream's heads are not reported to the tracker (null: nobody is benched). */
  sittingOut?: ((name: string) => boolean) | null;
  /** Adapts the delay between probes to the block interval and sees every probe answer (null: every intervalMs). */
  watch?: HeadWatch | null;
  /**
   * Sees a probe answer showing a head above the believed one that
   * will be believed, before the tracker hears it (null: none).
   */
  adopt?: ((res: UpstreamResponse, height: number) => void) | null;
  /** Sees a probe answer showing the believed head again: it still stands (null: none). */
  confirm?: ((height: number) => void) | null;
  /** Sees, on a follower, the leader's probe answer showing the highest head (null: none). */
  install?: ((res: UpstreamResponse, height: number) => void) | null;
  /** The fleet's division of work (null: no fleet, this replica probes). */
  duty?: ProbeDuty | null;
}

export class Prober {
  readonly #o: ProberOptions;
  readonly #timers = new Map<Upstream, NodeJS.Timeout>();
  #stopped = false;
  #started = false;
  #belowSince: number | null = null;
  /** Heads of the first round, held until it completes (null afterwards). */
  #firstHeads: Map<string, number> | null = new Map();
  #resolveFirst!: () => void;
  /**
   * Resolves when every upstream has answered (or failed) its
   * first probe since `start()` / `probeOnce()`. Never rejects.
   */
  readonly firstRound: Promise<void>;
  readonly #watch: HeadWatch | null;
  readonly #nextDelay: (elapsedMs: number) => number;
  readonly #adopt: ((res: UpstreamResponse, height: number) => void) | null;
  readonly #confirm: ((height: number) => void) | null;
  /** Upstreams whose first failure was reported (or is held for the sink). */
  readonly #failedOnce = new Set<Upstream>();
  readonly #heldFailures: Array<[string, ProxyError]> = [];
  #failureSink: FirstFailureSink | null = null;
  readonly #duty: ProbeDuty | null;
  readonly #ids: Map<string, Upstream>;
  readonly #idOf: Map<Upstream, string>;
  /** Probe loops for upstreams added after start (a reload's new URL). */
  #loopOf: ((u: Upstream) => void) | null = null;
  /** When each upstream's last probe answered or failed. */
  readonly #probedAt = new Map<Upstream, number>();
  /** Each upstream's last answer showing a head, with that head (shared with followers while it is the head). */
  readonly #answers = new Map<Upstream, { height: number; body: string }>();

  constructor(o: ProberOptions) {
    this.#o = o;
    const watch = o.watch ?? null;
    this.#watch = watch;
    this.#adopt = o.adopt ?? null;
    this.#confirm = o.confirm ?? null;
    this.#nextDelay = watch === null ? () => o.intervalMs : (elapsedMs) => watch.nextDelay(elapsedMs);
    this.firstRound = new Promise((resolve) => (this.#resolveFirst = resolve));
    this.#duty = o.duty ?? null;
    this.#idOf = new Map(o.upstreams.map((u) => [u, upstreamId(u.url)]));
    this.#ids = new Map([...this.#idOf].map(([u, id]) => [id, u]));
    this.#duty?.onHeads((heads, intervals) => {
      // The fleet's cadence, planned with until this replica has learned its own.
      if (intervals !== undefined) watch?.seed(intervals);
      this.#follow(heads);
    });
  }

  /**
   * The leader's probe results: each upstream's head and health as it saw them
   * (breakers untouched). A recent one showing the believed head again renews
   * the head entry, as this replica's own probe would.
   */
  #follow(heads: readonly UpstreamHead[]): void {
    if (this.#stopped) return;
    let confirmed = false;
    for (const h of heads) {
      const u = this.#ids.get(h.id);
      if (u === undefined) continue;
      if (h.head !== null) u.head = h.head;
      u.probeOk = h.ok;
      if (!h.ok) continue;
      u.vouched();
      if (
        h.ageMs <= this.#o.intervalMs &&
        h.head === this.#o.tracker.bestHead() &&
        this.#o.sittingOut?.(u.name) !== true
      )
        confirmed = true;
    }
    const best = this.#o.tracker.bestHead();
    if (confirmed && best !== null && this.#firstHeads === null) this.#confirm?.(best);
    this.#install(heads);
    this.#followDown();
  }

  /** The leader's answer showing the highest head (of an upstream not sitting out) goes to the head entry. */
  #install(heads: readonly UpstreamHead[]): void {
    const install = this.#o.install ?? null;
    if (install === null) return;
    let top: { u: Upstream; head: number; answer: string } | null = null;
    for (const h of heads) {
      const u = this.#ids.get(h.id);
      if (u === undefined || !h.ok || h.head === null || h.answer === undefined) continue;
      if (this.#o.sittingOut?.(u.name) === true || (top !== null && top.head >= h.head)) continue;
      top = { u, head: h.head, answer: h.answer };
    }
    if (top === null) return;
    const res = followedAnswer(top.u.name, top.answer, top.head);
    if (res !== null) install(res, top.head);
  }

  readonly #snapshot = (): UpstreamHead[] => {
    const now = performance.now();
    return this.#o.upstreams.map((u) => {
      // A replica that followed (heads from the bus) and now leads: its own last answer may show an older head.
      const a = this.#answers.get(u);
      return {
        id: this.#idOf.get(u) ?? '',
        head: u.head,
        ok: u.probeOk === true,
        ageMs: Math.round(now - (this.#probedAt.get(u) ?? now)),
        ...(u.probeOk === true && a !== undefined && a.height === u.head ? { answer: a.body } : {}),
      };
    });
  };

  readonly #intervals = (): number[] => this.#watch?.intervals() ?? [];

  #share(): void {
    this.#duty?.probed(this.#snapshot, this.#intervals);
  }

  /** From now on the first failed probe of each upstream goes to `sink` (those before it at once). */
  onFirstFailure(sink: FirstFailureSink): void {
    this.#failureSink = sink;
    for (const [url, err] of this.#heldFailures.splice(0)) sink(url, err);
  }

  #firstFailure(u: Upstream, err: ProxyError): void {
    if (this.#failedOnce.has(u)) return;
    this.#failedOnce.add(u);
    if (this.#failureSink === null) this.#heldFailures.push([u.url, err]);
    else this.#failureSink(u.url, err);
  }

  /** One probe of every upstream, in parallel. Never rejects. */
  async probeOnce(): Promise<void> {
    await Promise.all(this.#o.upstreams.map((u) => this.#probe(u)));
    this.#flushFirst();
    this.#share();
    this.#resolveFirst();
  }

  async #probe(u: Upstream): Promise<void> {
    const was = u.probeOk;
    try {
      const res = await u.run(PROBE);
      const height = parseHeight(res.json);
      if (height !== null) {
        u.head = height;
        // Shared with followers only in a fleet (a string per probe otherwise made for nobody).
        if (this.#duty !== null) this.#answers.set(u, { height, body: res.body.toString('utf8') });
        this.#offer(u.name, res, height);
        this.#report(u.name, height);
        if (
          this.#confirm !== null &&
          this.#firstHeads === null &&
          height === this.#o.tracker.bestHead() &&
          this.#o.sittingOut?.(u.name) !== true
        )
          this.#confirm(height);
      }
      u.probeOk = true;
      this.#watch?.probed(u.name, height);
    } catch (e) {
      // A probe cut by the pool's close (a drain) says nothing about the upstream.
      if (this.#stopped) return;
      u.probeOk = false; // Upstream.run recorded lastError
      this.#watch?.probed(u.name, null);
      this.#firstFailure(u, toProxyError(e));
    }
    this.#probedAt.set(u, performance.now());
    if (was !== u.probeOk && this.#o.logger) {
      const fields = { upstream: u.name, url: u.url, head: u.head, lastError: u.lastError };
      if (u.probeOk) this.#o.logger.info(fields, 'upstream probe ok');
      else this.#o.logger.warn(fields, 'upstream probe failed');
    }
    this.#followDown();
  }

  /** A new head the tracker is about to believe (plausible, above the believed one) goes to `adopt` first. */
  #offer(name: string, res: UpstreamResponse, height: number): void {
    const adopt = this.#adopt;
    if (adopt === null || this.#firstHeads !== null || this.#o.sittingOut?.(name) === true) return;
    const { tracker } = this.#o;
    const best = tracker.bestHead();
    if (best !== null && height > best && tracker.plausible(height)) adopt(res, height);
  }

  #report(name: string, height: number): void {
    if (this.#o.sittingOut?.(name) === true) return;
    if (this.#firstHeads === null) this.#o.tracker.observeHead(height, name);
    else this.#firstHeads.set(name, height);
  }

  /**
   * The first round's heads, median first (the lower one of an even count),
   * then the rest in ascending order: with no trusted head yet the first report
   * is believed, so one upstream far ahead at startup does not set the head.
   */
  #flushFirst(): void {
    const heads = this.#firstHeads;
    if (heads === null) return;
    this.#firstHeads = null;
    const sorted = [...heads].sort((a, b) => a[1] - b[1]);
    const mid = sorted.splice(Math.floor((sorted.length - 1) / 2), 1);
    for (const [name, height] of [...mid, ...sorted]) this.#o.tracker.observeHead(height, name);
  }

  #followDown(): void {
    const { tracker, upstreams, intervalMs } = this.#o;
    const best = tracker.bestHead();
    const target = followDownTarget(
      best,
      upstreams.map((u) => (u.probeOk === true && this.#o.sittingOut?.(u.name) !== true ? u.head : null)),
    );
    if (target === null) {
      this.#belowSince = null;
      return;
    }
    const now = performance.now();
    this.#belowSince ??= now;
    if (now - this.#belowSince < (this.#o.followDownRounds ?? 3) * intervalMs) return;
    this.#belowSince = null;
    if (best !== null && tracker.rebase(target)) {
      this.#o.logger?.warn({ from: best, to: target }, 'every upstream reports a lower head: following them down');
      this.#o.onRebase?.(best, target);
    }
  }

  /**
   * Starts one loop per upstream: probe at once, then the cadence's delay
   * (intervalMs without one) after each probe ends, except that a dense step
   * runs from the previous probe's start (never overlapping).
   */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    let pending = this.#o.upstreams.length;
    if (pending === 0) {
      this.#flushFirst();
      this.#resolveFirst();
    }
    const startLoop = (u: Upstream, firstRound: boolean): void => {
      let first = firstRound;
      const loop = (): void => {
        // Replaced by a reload: this loop ends (the new upstream has its own).
        if (!this.#o.upstreams.includes(u)) return;
        const began = performance.now();
        // After the first round, a follower skips the probe while its leader is heard.
        const turn = first ? 'leader' : (this.#duty?.turn() ?? 'leader');
        if (turn === 'alone') this.#duty?.selfProbe();
        const probed = turn === 'follower' ? Promise.resolve() : this.#probe(u).then(() => this.#share());
        void probed.then(() => {
          if (first) {
            first = false;
            if (--pending === 0) {
              this.#flushFirst();
              this.#resolveFirst();
            }
          }
          if (this.#stopped || !this.#o.upstreams.includes(u)) return;
          // A failed probe waits its whole delay from its end (a hung upstream is not probed back to back).
          const t = setTimeout(loop, this.#nextDelay(u.probeOk === true ? performance.now() - began : 0));
          t.unref();
          this.#timers.set(u, t);
        });
      };
      const t = setTimeout(loop, 0);
      t.unref();
      this.#timers.set(u, t);
    };
    for (const u of this.#o.upstreams) startLoop(u, true);
    this.#loopOf = (u) => startLoop(u, false);
  }

  /**
   * `fresh` took the place of `old` in the upstream list (a reload's new URL
   * under the same name): the old probe loop ends, the new one starts at once.
   */
  replaced(old: Upstream, fresh: Upstream): void {
    clearTimeout(this.#timers.get(old));
    this.#timers.delete(old);
    const id = upstreamId(fresh.url);
    this.#ids.delete(this.#idOf.get(old) ?? '');
    this.#idOf.delete(old);
    this.#idOf.set(fresh, id);
    this.#ids.set(id, fresh);
    if (!this.#stopped) this.#loopOf?.(fresh);
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    this.#resolveFirst();
  }
}
