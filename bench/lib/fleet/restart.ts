/**
 * A rolling restart under load with a concurrent control, for the bench (l):
 * one lockstep chain, two identical fleets in front of it (bench/lib/fleet/stack.ts:
 * each its own recording wrapper, redis-server, N replicas and nginx), and one
 * open-loop driver that sends every drawn request to both balancers at the same
 * instant, each answer judged. Both fleets see the same blocks and the same
 * requests; in each round one of them has every replica restarted in place one
 * after another (`spacingS` after the previous one's readiness, or back to back)
 * and the other is its control over exactly the same window: from `leadS`
 * before the first SIGTERM to `tailS` after the last /readyz 200. The restarted
 * fleet alternates from round to round (so a difference between the two stacks
 * cancels), the plans' order too; between rounds `settleS` unmeasured, so a
 * fleet restarted in one round is no longer young when it is the next round's control.
 */
import { sleep } from '../proc.js';
import { startDriver, type Judged, type Tally } from '../oracle/driver.js';
import { startLockstep, type Lockstep } from '../oracle/lockstep.js';
import type { Window } from '../oracle/mode.js';
import { buildUniverse, explorerSampler } from '../oracle/workload.js';
import { startStack, type Restarted, type Stack } from './stack.js';

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
  /** Measured before the first SIGTERM. */
  leadS: number;
  /** Measured after the last replica's /readyz 200. */
  tailS: number;
  /** Unmeasured between rounds. */
  settleS: number;
  plans: readonly RestartPlan[];
  /** Rounds per plan. */
  rounds: number;
  /** The balancer of the recipe (retries on another replica), else plain round-robin. */
  recipe: boolean;
  /** Extra settings of every replica (DRAIN_DELAY_MS when the build knows it). */
  env: Record<string, string>;
  log: (m: string) => void;
}

/** One fleet's side of a round. */
export interface Arm {
  /** 'A' or 'B'. */
  fleet: string;
  window: Window;
  /** Every judged answer of the window. */
  judged: Judged[];
}

export interface PairedRound {
  plan: RestartPlan;
  /** The round (from 0) of its plan. */
  round: number;
  restarted: Arm;
  control: Arm;
  /** The restarted fleet's restarts. */
  restarts: Restarted[];
  /** The same replicas' slots and moments in the control (its addresses): its answers split the same way. */
  mirrored: Restarted[];
}

/** The rounds in order: the fleet restarted alternates, and so does the plans' order. */
function schedule(plans: readonly RestartPlan[], rounds: number): Array<{ plan: RestartPlan; round: number }> {
  return [...Array(rounds).keys()].flatMap((round) =>
    (round % 2 === 0 ? plans : [...plans].reverse()).map((plan) => ({ plan, round })),
  );
}

const windowOf = (tally: Tally, stack: Stack, lock: Lockstep, h0: number, h1: number): Window => ({
  tally,
  recorder: stack.recorder.take(),
  blocks: h1 - h0,
  internalCredits: lock.internalTransfers ? lock.creditsIn(h0, h1) : null,
  ended: null,
});

export async function runPaired(o: RestartOptions): Promise<PairedRound[]> {
  const lock = await startLockstep({ blockIntervalMs: o.blockIntervalMs, jitter: o.jitter });
  const stacks: Stack[] = [];
  const log = (m: string): void => o.log(`${o.recipe ? 'recipe' : 'plain'} balancer: ${m}`);
  try {
    for (const name of ['A', 'B'])
      stacks.push(
        await startStack({
          name: `restart-${name}`,
          upstream: lock.upstream.url,
          replicas: o.replicas,
          recipe: o.recipe,
          env: o.env,
        }),
      );
    lock.start();
    const u = buildUniverse(lock.seed, lock.head());
    const sample = explorerSampler(u, () => lock.head());
    let judged: Judged[][] = [[], []];
    const driver = startDriver({
      targets: stacks.map((s) => s.url),
      lock,
      sample,
      rate: o.rate,
      onJudged: (a, k) => void judged[k]!.push(a),
    });
    const out: PairedRound[] = [];
    try {
      log(`warm-up ${o.warmS} s, both fleets`);
      await sleep(o.warmS * 1000);
      const order = schedule(o.plans, o.rounds);
      for (const [n, { plan, round }] of order.entries()) {
        const r = n % 2;
        const c = 1 - r;
        const [fr, fc] = [stacks[r]!, stacks[c]!];
        log(`${n + 1}/${order.length}: fleet ${'AB'[r]} restarted ${plan.name}, fleet ${'AB'[c]} its control`);
        driver.cut();
        for (const s of stacks) s.recorder.take();
        judged = [[], []];
        const h0 = lock.head();
        await sleep(o.leadS * 1000);
        const restarts: Restarted[] = [];
        for (let i = 0; i < fr.replicas; i++) {
          if (i > 0 && plan.spacingS > 0) await sleep(plan.spacingS * 1000);
          restarts.push(await fr.restart(i));
        }
        await sleep(o.tailS * 1000);
        const tallies = driver.cut();
        const h1 = lock.head();
        out.push({
          plan,
          round,
          restarted: { fleet: 'AB'[r]!, window: windowOf(tallies[r]!, fr, lock, h0, h1), judged: judged[r]! },
          control: { fleet: 'AB'[c]!, window: windowOf(tallies[c]!, fc, lock, h0, h1), judged: judged[c]! },
          restarts,
          mirrored: restarts.map((x) => ({ ...x, upstream: fc.address(x.replica) })),
        });
        judged = [[], []];
        await sleep(o.settleS * 1000);
      }
    } finally {
      await driver.stop();
    }
    return out;
  } finally {
    await Promise.all(stacks.map((s) => s.close()));
    await lock.close();
  }
}
