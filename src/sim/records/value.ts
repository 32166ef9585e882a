/**
 * Native amounts, in units of 10^14 wei, as functions of a tx's position x (height for slots, extra
 * number for extras), chosen so that sums over an address's progressions are closed-form: balances
 * are the true sums of what the ledger lists. See README.md "Ledger".
 */

/** Wei digits after a unit count. */
const UNIT_ZEROS = '00000000000000';
/** Endowment of the addresses that send (indexes 0..135183) at genesis. */
export const ENDOWMENT = 10_000_000;
/** Reward of the block's coinbase (its miner). */
export const BLOCK_REWARD = 50_000;

/** Value of a native transfer at position x. */
export function transferUnits(x: number): number {
  return 10 * (1 + (x % 97));
}

/** A native transfer at position x fails (its value stays, its fee is paid): ~2.7 %. */
export function transferFails(x: number): boolean {
  return x % 37 === 5;
}

export function units(n: number): string {
  return n === 0 ? '0' : String(n) + UNIT_ZEROS;
}

/** gas_used of a contract call at extra m: its fee (20 Gwei gas price) is 5 + m mod 196 units. */
export function callGas(m: number): number {
  return 5000 * (5 + (m % 196));
}

/** gas_used of a pod tx at extra m: its fee (1000 Gwei gas price) is 1500 + m mod 20 units. */
export function podGas(m: number): number {
  return 150_000 + 100 * (m % 20);
}

/** Fees in units: binary transfers and NRC20 transfers (20000 gas), deploys (100000 gas). */
export const TRANSFER_FEE = 4;
export const DEPLOY_FEE = 20;
export const TRANSFER_GAS = 20_000;
export const DEPLOY_GAS = 100_000;

/** Σ_{i<n} floor((a i + b) / m) for non-negative a, b (AtCoder floor_sum). */
function floorSum(n: number, m: number, a: number, b: number): number {
  let ans = 0;
  for (;;) {
    if (a >= m) {
      ans += (((n - 1) * n) / 2) * Math.floor(a / m);
      a %= m;
    }
    if (b >= m) {
      ans += n * Math.floor(b / m);
      b %= m;
    }
    const yMax = a * n + b;
    if (yMax < m) return ans;
    n = Math.floor(yMax / m);
    b = yMax % m;
    [m, a] = [a, m];
  }
}

/** Σ_{i<n} ((x0 + d i) mod p). */
export function sumMod(x0: number, d: number, n: number, p: number): number {
  if (n <= 0) return 0;
  const b = x0 % p;
  const a = d % p;
  return n * b + a * (((n - 1) * n) / 2) - p * floorSum(n, p, a, b);
}

/** Inverses modulo 37. */
const INV37: number[] = [0];
for (let a = 1; a < 37; a++) for (let b = 1; b < 37; b++) if ((a * b) % 37 === 1) INV37[a] = b;

/** Σ of transferUnits over the n positions x0 + d i that do not fail. */
export function movedUnits(x0: number, d: number, n: number): number {
  if (n <= 0) return 0;
  let all = 10 * (n + sumMod(x0, d, n, 97));
  // failing positions: x0 + d i ≡ 5 (mod 37), i.e. i ≡ (5 - x0) / d, a progression of step 37 d
  const dm = d % 37;
  const i0 = dm === 0 ? (x0 % 37 === 5 ? 0 : -1) : (((5 - (x0 % 37) + 37) % 37) * INV37[dm]!) % 37;
  if (i0 >= 0 && i0 < n) {
    const t = Math.floor((n - 1 - i0) / 37) + 1;
    all -= 10 * (t + sumMod(x0 + d * i0, 37 * d, t, 97));
  }
  return all;
}
