/**
 * The ratio of a paired bench (l): events per base (stale answers per judged answer,
 * upstream requests per client request) of the restarted fleets over the controls',
 * pooled over rounds, and a bootstrap over rounds for its uncertainty.
 */
import { rng } from '../zipf.js';

/** One round's counts: events and their base, in each arm. */
export interface PairCounts {
  restarted: { events: number; base: number };
  control: { events: number; base: number };
}

/** (Σ restarted events / Σ restarted base) / (Σ control events / Σ control base); null when undefined. */
export function pooledRatio(rounds: readonly PairCounts[]): number | null {
  let re = 0;
  let rb = 0;
  let ce = 0;
  let cb = 0;
  for (const p of rounds) {
    re += p.restarted.events;
    rb += p.restarted.base;
    ce += p.control.events;
    cb += p.control.base;
  }
  if (rb === 0 || cb === 0 || ce === 0) return null;
  return re / rb / (ce / cb);
}

/**
 * The central `level` interval of the pooled ratio over `resamples` draws of the rounds with
 * replacement (seeded); null with fewer than 2 rounds or when no draw gives a ratio.
 */
export function bootstrapInterval(
  rounds: readonly PairCounts[],
  resamples = 1000,
  level = 0.9,
  seed = 1,
): [number, number] | null {
  if (rounds.length < 2) return null;
  const random = rng(seed);
  const ratios: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const draw = rounds.map(() => rounds[Math.floor(random() * rounds.length)]!);
    const r = pooledRatio(draw);
    if (r !== null) ratios.push(r);
  }
  if (ratios.length === 0) return null;
  ratios.sort((a, b) => a - b);
  const at = (q: number): number => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!;
  return [at((1 - level) / 2), at((1 + level) / 2)];
}
