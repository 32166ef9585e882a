/**
 * Two simulators with the same seed and start time, the upstream and the truth, advanced
 * together: one timer calls advance(1) on both chains in the same tick, so they have the same
 * head at every moment. Both run in this process with their own timers off (blockIntervalMs 0);
 * the upstream is a real HTTP simulator, the truth's chain is read directly (truth.ts). A jitter
 * on the interval spreads the blocks over the phases of the proxy's head probe, as a real chain's do.
 * Both run with internal transfers (value paid to addresses no block names) unless told not to.
 */
import { internalCreditsAt, startSimulator, type SimulatorHandle } from '../../../src/sim/index.js';
import { rng } from '../zipf.js';

export interface Lockstep {
  upstream: SimulatorHandle;
  truth: SimulatorHandle;
  seed: number;
  /** both chains pay internal transfers (src/sim/README.md "Ledger") */
  internalTransfers: boolean;
  /** Internal transfers paid by blocks from+1 .. to (0 when internalTransfers is off). */
  creditsIn(from: number, to: number): number;
  head(): number;
  /** Wall ms at which block h was produced (null for the start head and unknown heights). */
  producedAt(h: number): number | null;
  /** Produces one block on both chains now. */
  advance(): number;
  /** Starts the block timer (one block every blockIntervalMs, ± jitter). */
  start(): void;
  stop(): void;
  close(): Promise<void>;
}

export interface LockstepOptions {
  seed?: number;
  blockIntervalMs: number;
  /** Unix ms the start head is timed at; default now */
  startTime?: number;
  finalityDepth?: number;
  /** each interval drawn uniformly in blockIntervalMs × [1 − jitter, 1 + jitter] (seeded); default 0 */
  jitter?: number;
  /** calls pay internal transfers no block names; default true */
  internalTransfers?: boolean;
}

export async function startLockstep(o: LockstepOptions): Promise<Lockstep> {
  const seed = o.seed ?? 1;
  const startTime = o.startTime ?? Date.now();
  const internalTransfers = o.internalTransfers ?? true;
  const common = { seed, startTime, blockIntervalMs: 0, finalityDepth: o.finalityDepth ?? 15, internalTransfers };
  const [upstream, truth] = await Promise.all([startSimulator(common), startSimulator(common)]);
  const produced = new Map<number, number>();
  let timer: NodeJS.Timeout | null = null;
  const advance = (): number => {
    const h = upstream.chain.advance(1);
    truth.chain.advance(1);
    produced.set(h, Date.now());
    return h;
  };
  const random = rng(seed + 1);
  const next = (): number => o.blockIntervalMs * (1 + (o.jitter ?? 0) * (2 * random() - 1));
  const tick = (): void => {
    advance();
    timer = setTimeout(tick, next());
  };
  const stop = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return {
    upstream,
    truth,
    seed,
    internalTransfers,
    creditsIn: (from, to) => {
      let n = 0;
      if (internalTransfers) for (let h = from + 1; h <= to; h++) n += internalCreditsAt(seed, h).length;
      return n;
    },
    head: () => upstream.chain.head(),
    producedAt: (h) => produced.get(h) ?? null,
    advance,
    start: () => {
      timer ??= setTimeout(tick, next());
    },
    stop,
    close: async () => {
      stop();
      await Promise.all([upstream.close(), truth.close()]);
    },
  };
}
