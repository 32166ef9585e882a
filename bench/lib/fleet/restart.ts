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
 *
 * Design `halves`: one fleet of twice the replicas on one Redis (one leader, one
 * bus, one recording wrapper), its two halves behind their own balancers; one
 * half is restarted, the other is its control. Both halves learn each block
 * from the same leader at the same moment, so the stale answers of the two
 * differ only by what the restarts do to the replicas answering, not by when
 * each fleet's own leader happened to probe (which, with two fleets, varies
 * far more from block to block than the 5 % to be judged). The upstream
 * requests are the whole fleet's, not per half: that ratio is the `fleets`
 * design's.
 */
import { sleep } from '../proc.js';
import { startDriver, type Judged, type Tally } from '../oracle/driver.js';
import { startLockstep, type Lockstep } from '../oracle/lockstep.js';
import type { Window } from '../oracle/mode.js';
import type { RecorderCounts } from '../oracle/recorder.js';
import { buildUniverse, explorerSampler } from '../oracle/workload.js';
import { startStack, type Restarted, type Stack } from './stack.js';

export interface RestartPlan {
  name: string;
  /** Seconds from one replica ready to the next one's SIGTERM (0: back to back). */
  spacingS: number;
}

export type Design = 'fleets' | 'halves';

export interface RestartOptions {
  design: Design;
  /** Replicas per side (a fleet, or a half). */
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
  design: Design;
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

const windowOf = (tally: Tally, recorder: RecorderCounts, lock: Lockstep, h0: number, h1: number): Window => ({
  tally,
  recorder,
  blocks: h1 - h0,
  internalCredits: lock.internalTransfers ? lock.creditsIn(h0, h1) : null,
  ended: null,
});

/** One side of the comparison: its front door and its replicas (indexes into its stack). */
interface Side {
  name: string;
  url: string;
  stack: Stack;
  replicas: number[];
}

/** Two fleets, or one fleet's two halves. */
async function startSides(o: RestartOptions, upstream: string): Promise<{ stacks: Stack[]; sides: Side[] }> {
  const common = { upstream, recipe: o.recipe, env: o.env };
  const n = o.replicas;
  const range = (from: number): number[] => Array.from({ length: n }, (_, i) => from + i);
  if (o.design === 'halves') {
    const s = await startStack({ ...common, name: 'restart-halves', replicas: 2 * n, groups: 2 });
    return {
      stacks: [s],
      sides: [
        { name: 'A', url: s.urls[0]!, stack: s, replicas: range(0) },
        { name: 'B', url: s.urls[1]!, stack: s, replicas: range(n) },
      ],
    };
  }
  const stacks: Stack[] = [];
  try {
    for (const name of ['A', 'B']) stacks.push(await startStack({ ...common, name: `restart-${name}`, replicas: n }));
  } catch (e) {
    await Promise.all(stacks.map((s) => s.close()));
    throw e;
  }
  return {
    stacks,
    sides: stacks.map((s, k) => ({ name: 'AB'[k]!, url: s.urls[0]!, stack: s, replicas: range(0) })),
  };
}

export async function runPaired(o: RestartOptions): Promise<PairedRound[]> {
  const lock = await startLockstep({ blockIntervalMs: o.blockIntervalMs, jitter: o.jitter });
  const log = (m: string): void => o.log(`${o.design}, ${o.recipe ? 'recipe' : 'plain'} balancer: ${m}`);
  try {
    const { stacks, sides } = await startSides(o, lock.upstream.url);
    try {
      return await rounds(o, lock, stacks, sides, log);
    } finally {
      await Promise.all(stacks.map((s) => s.close()));
    }
  } finally {
    await lock.close();
  }
}

async function rounds(
  o: RestartOptions,
  lock: Lockstep,
  stacks: readonly Stack[],
  sides: readonly Side[],
  log: (m: string) => void,
): Promise<PairedRound[]> {
  lock.start();
  const u = buildUniverse(lock.seed, lock.head());
  const sample = explorerSampler(u, () => lock.head());
  let judged: Judged[][] = [[], []];
  const driver = startDriver({
    targets: sides.map((s) => s.url),
    lock,
    sample,
    rate: o.rate,
    onJudged: (a, k) => void judged[k]!.push(a),
  });
  const out: PairedRound[] = [];
  try {
    log(`warm-up ${o.warmS} s, both sides`);
    await sleep(o.warmS * 1000);
    const order = schedule(o.plans, o.rounds);
    for (const [n, { plan, round }] of order.entries()) {
      const [r, c] = [n % 2, 1 - (n % 2)];
      const [sr, sc] = [sides[r]!, sides[c]!];
      log(`${n + 1}/${order.length}: ${sr.name} restarted ${plan.name}, ${sc.name} its control`);
      driver.cut();
      for (const s of stacks) s.recorder.take();
      judged = [[], []];
      const h0 = lock.head();
      await sleep(o.leadS * 1000);
      const restarts: Restarted[] = [];
      for (const [k, i] of sr.replicas.entries()) {
        if (k > 0 && plan.spacingS > 0) await sleep(plan.spacingS * 1000);
        restarts.push(await sr.stack.restart(i));
      }
      await sleep(o.tailS * 1000);
      const tallies = driver.cut();
      const h1 = lock.head();
      // With halves, one recording wrapper: both sides get the whole fleet's counts.
      const counts = new Map(stacks.map((s) => [s, s.recorder.take()] as const));
      const arm = (k: number, side: Side): Arm => ({
        fleet: side.name,
        window: windowOf(tallies[k]!, counts.get(side.stack)!, lock, h0, h1),
        judged: judged[k]!,
      });
      out.push({
        design: o.design,
        plan,
        round,
        restarted: arm(r, sr),
        control: arm(c, sc),
        restarts,
        mirrored: restarts.map((x) => {
          const slot = sr.replicas.indexOf(x.replica);
          return { ...x, upstream: sc.stack.address(sc.replicas[slot]!) };
        }),
      });
      judged = [[], []];
      await sleep(o.settleS * 1000);
    }
  } finally {
    await driver.stop();
  }
  return out;
}
