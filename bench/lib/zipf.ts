/** Zipf sampler over ranks 0..n-1 (P(k) ∝ 1/(k+1)^s), inverse CDF by binary search; seeded PRNG. */

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function zipf(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / Math.pow(k + 1, s);
    cdf[k] = sum;
  }
  for (let k = 0; k < n; k++) cdf[k]! /= sum;
  return () => {
    const u = random();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Pick from weighted choices. */
export function weighted<T>(items: ReadonlyArray<readonly [number, T]>, random: () => number): () => T {
  const total = items.reduce((a, [w]) => a + w, 0);
  const cum: number[] = [];
  let acc = 0;
  for (const [w] of items) cum.push((acc += w / total));
  return () => {
    const u = random();
    for (let i = 0; i < cum.length; i++) if (u < cum[i]!) return items[i]![1];
    return items[items.length - 1]![1];
  };
}
