/**
 * A rolling restart under load, for the bench (l): the stack of (r) (lockstep
 * chain, recording wrapper, one redis-server, N chainproxy child processes
 * sharing it behind nginx) with the balancer of the rolling-restart recipe
 * (`recipe`), or the plain one. After a warm-up, `rounds` rounds of measured
 * windows of the oracle workload, each judged answer by answer: one without
 * restarts and one per restart plan, during which every replica is restarted
 * in place one after another (SIGTERM, its exit, a new process on the same
 * port, its /readyz 200), `spacingS` apart or back to back (readiness alone
 * between them). The order of the windows rotates from round to round, so no
 * kind of window always follows another (a restart's cold caches, the chain's
 * state): each restart window is compared with the window without restarts
 * of its own round.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, sleep, waitForHttp } from '../proc.js';
import { startProxyProc, type ProxyProc } from '../proxy.js';
import { startRedis } from '../redis.js';
import { startBalancer } from '../balancer.js';
import { drive, type Judged } from '../oracle/driver.js';
import { startLockstep } from '../oracle/lockstep.js';
import type { Window } from '../oracle/mode.js';
import { startRecorder } from '../oracle/recorder.js';
import { buildUniverse, explorerSampler } from '../oracle/workload.js';

export interface RestartPlan {
  name: string;
  /** Seconds from one replica ready to the next one's SIGTERM (0: back to back). */
  spacingS: number;
}

export interface RestartOptions {
  replicas: number;
  blockIntervalMs: number;
  jitter: number;
  rate: number;
  warmS: number;
  /** Least length of a measured window (a window lasts until its restarts are over, plus `tailS`). */
  windowS: number;
  tailS: number;
  plans: readonly RestartPlan[];
  /** Rounds of windows (each: one without restarts and one per plan, in an order rotated per round). */
  rounds: number;
  /** The balancer of the recipe (retries on another replica), else plain round-robin. */
  recipe: boolean;
  /** Extra settings of every replica (DRAIN_DELAY_MS when the build knows it). */
  env: Record<string, string>;
  log: (m: string) => void;
}

export interface PlanWindow {
  plan: RestartPlan | null;
  /** The round (from 0) the window belongs to. */
  round: number;
  window: Window;
  /** Per restart: ms from SIGTERM to the new process's /readyz 200. */
  outages: number[];
  /** Per restart: the replica's address (host:port), when the old process exited and the new one's /readyz said 200. */
  readied: Restarted[];
  /** Every judged answer of the window (when, stale, which replica). */
  judged: Judged[];
}

/** One restart's moments (Date.now()). */
export interface Restarted {
  upstream: string;
  exited: number;
  ready: number;
}

/** The windows of round `r`: no restarts and each plan, rotated by `r` places. */
function roundOrder<T>(kinds: readonly T[], r: number): T[] {
  const k = r % kinds.length;
  return [...kinds.slice(k), ...kinds.slice(0, k)];
}

/** Resolves when the process has exited (SIGKILL after `graceMs`). */
function stopGracefully(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

export async function runRestarts(o: RestartOptions): Promise<PlanWindow[]> {
  const lock = await startLockstep({ blockIntervalMs: o.blockIntervalMs, jitter: o.jitter });
  const recorder = await startRecorder(lock.upstream.url);
  const redis = await startRedis();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proxies: ProxyProc[] = [];
  const envOf = (p: number): Record<string, string> => ({
    ...o.env,
    REDIS_URL: redis.url,
    PUBLIC_BASE_URL: base,
    PORT: String(p),
  });
  const ports: number[] = [];
  const log = (m: string): void => o.log(`${o.recipe ? 'recipe' : 'plain'} balancer: ${m}`);
  try {
    for (let i = 0; i < o.replicas; i++) {
      ports.push(await freePort());
      proxies.push(await startProxyProc([recorder.url], envOf(ports[i]!), `restart-r${i}`));
    }
    const balancer = await startBalancer(
      port,
      proxies.map((p) => p.url),
      o.recipe,
    );
    let generation = 0;
    /** Replica i restarted in place; resolves with ms from SIGTERM to its successor's readiness. */
    const restart = async (i: number, readied: PlanWindow['readied']): Promise<number> => {
      const t0 = Date.now();
      await stopGracefully(proxies[i]!.child.proc, 60_000);
      const exited = Date.now();
      const next = await startProxyProc([recorder.url], envOf(ports[i]!), `restart-r${i}-g${++generation}`, 120_000);
      await waitForHttp(`${next.url}/readyz`, next.child, 60_000);
      readied.push({ upstream: `127.0.0.1:${ports[i]!}`, exited, ready: Date.now() });
      proxies[i] = next;
      return Date.now() - t0;
    };
    try {
      lock.start();
      const u = buildUniverse(lock.seed, lock.head());
      const sample = explorerSampler(u, () => lock.head());
      let judged: Judged[] = [];
      const onJudged = (a: Judged): void => void judged.push(a);
      const load = (durationS: number) =>
        drive({ proxyUrl: balancer.url, lock, sample, rate: o.rate, durationS, onJudged });
      log(`warm-up ${o.warmS} s`);
      await load(o.warmS);
      const out: PlanWindow[] = [];
      const windows = [...Array(o.rounds).keys()].flatMap((round) =>
        roundOrder([null, ...o.plans], round).map((plan) => ({ plan, round })),
      );
      for (const { plan, round } of windows) {
        const what = plan === null ? `${o.windowS} s, no restart` : `with restarts, ${plan.name}`;
        log(`round ${round + 1}/${o.rounds}: measuring ${what}`);
        recorder.take();
        judged = [];
        const h0 = lock.head();
        const outages: number[] = [];
        const readied: PlanWindow['readied'] = [];
        const restarts = async (): Promise<void> => {
          if (plan === null) return;
          await sleep(2000);
          for (let i = 0; i < proxies.length; i++) {
            if (i > 0 && plan.spacingS > 0) await sleep(plan.spacingS * 1000);
            outages.push(await restart(i, readied));
          }
        };
        // The window lasts until the restarts are over, plus a tail, and at least windowS.
        const started = Date.now();
        const done = restarts();
        const tallies = [await load(o.windowS)];
        await done;
        const left = o.tailS - (Date.now() - started - o.windowS * 1000) / 1000;
        if (plan !== null && left > 0) tallies.push(await load(left));
        const h1 = lock.head();
        out.push({
          plan,
          round,
          outages,
          readied,
          judged,
          window: {
            tally: merge(tallies),
            recorder: recorder.take(),
            blocks: h1 - h0,
            internalCredits: lock.internalTransfers ? lock.creditsIn(h0, h1) : null,
            ended: null,
          },
        });
      }
      return out;
    } finally {
      await balancer.close();
    }
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await redis.close();
    await recorder.close();
    await lock.close();
  }
}

type Tally = Window['tally'];

/** Two driven stretches of one window as one tally. */
function merge(ts: readonly Tally[]): Tally {
  const [first, ...rest] = ts;
  const t: Tally = { ...first!, byEndpoint: new Map(first!.byEndpoint) };
  for (const r of rest) {
    t.requests += r.requests;
    t.hits += r.hits;
    t.errors += r.errors;
    t.dropped += r.dropped;
    t.stale += r.stale;
    t.unmatched += r.unmatched;
    t.maxBehind = Math.max(t.maxBehind, r.maxBehind);
    t.staleCredited += r.staleCredited;
    t.headDelays = [...t.headDelays, ...r.headDelays];
    t.latencies = [...t.latencies, ...r.latencies];
    t.durationS += r.durationS;
    for (const [k, v] of r.byEndpoint) {
      const was = t.byEndpoint.get(k);
      const behind =
        was === undefined || was.maxBehind === null || v.maxBehind === null
          ? null
          : Math.max(was.maxBehind, v.maxBehind);
      t.byEndpoint.set(
        k,
        was === undefined ? v : { requests: was.requests + v.requests, stale: was.stale + v.stale, maxBehind: behind },
      );
    }
  }
  return t;
}
