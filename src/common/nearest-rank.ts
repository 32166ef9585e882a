/** The q-quantile (0..1) of `sorted` (ascending, not empty) by nearest rank: a sample, never an interpolation. */
export function nearestRank(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? 0;
}
