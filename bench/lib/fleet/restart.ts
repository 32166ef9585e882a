/**
 * A rolling restart under load, for the bench (l): the stack of (r) (lockstep
 * chain, recording wrapper, one redis-server, N chainproxy child processes
 * sharing it behind nginx) with the balancer of the rolling-restart recipe
 * (`recipe`), or the plain one. After a warm-up, measured windows of the oracle
 * workload, each judged answer by answer: one without restarts, then one per
 * restart plan, during which every replica is restarted in place one after
 * another (SIGTERM, its exit, a new process on the same port, its /readyz 200),
 * `spacingS` apart or back to back (readiness alone between them).
 */
import type { ChildProcess } from 'node:child_process';
import { freePort, sleep, waitForHttp } from '../proc.js';
import { startProxyProc, type ProxyProc } from '../proxy.js';
import { startRedis } from '../redis.js';
import { startBalancer } from '../balancer.js';
import { drive } from '../oracle/driver.js';
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
  /** The balancer of the recipe (retries on another replica), else plain round-robin. */
  recipe: boolean;
  /** Extra settings of every replica (DRAIN_DELAY_MS when the build knows it). */
  env: Record<string, string>;
  log: (m: string) => void;
}

export interface PlanWindow {
  plan: RestartPlan | null;
  window: Window;
  /** Per restart: ms from SIGTERM to the new process's /readyz 200. */
  outages: number[];
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
    const restart = async (i: number): Promise<number> => {
      const t0 = Date.now();
      await stopGracefully(proxies[i]!.child.proc, 60_000);
      const next = await startProxyProc([recorder.url], envOf(ports[i]!), `restart-r${i}-g${++generation}`, 120_000);
      await waitForHttp(`${next.url}/readyz`, next.child, 60_000);
      proxies[i] = next;
      return Date.now() - t0;
    };
    try {
      lock.start();
      const u = buildUniverse(lock.seed, lock.head());
      const sample = explorerSampler(u, () => lock.head());
      const load = (durationS: number) => drive({ proxyUrl: balancer.url, lock, sample, rate: o.rate, durationS });
      log(`warm-up ${o.warmS} s`);
      await load(o.warmS);
      const out: PlanWindow[] = [];
      for (const plan of [null, ...o.plans]) {
        log(plan === null ? `measuring ${o.windowS} s, no restart` : `measuring with restarts, ${plan.name}`);
        recorder.take();
        const h0 = lock.head();
        const outages: number[] = [];
        const restarts = async (): Promise<void> => {
          if (plan === null) return;
          await sleep(2000);
          for (let i = 0; i < proxies.length; i++) {
            if (i > 0 && plan.spacingS > 0) await sleep(plan.spacingS * 1000);
            outages.push(await restart(i));
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
          outages,
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
