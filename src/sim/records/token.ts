/** NRC20 token holders (2.3.8). */
import type { TokenDef } from '../constants.js';
import { normalAddress } from '../ids.js';

const REF_HEAD = 4_842_000;

export function tokenHolderCount(t: TokenDef, head: number): number {
  return Math.max(1, Math.min(131_000, t.holders + Math.floor((head - REF_HEAD) / 2880)));
}

/** Holder of rank r (1-based), balances decreasing with rank. */
export function tokenHolderRecord(seed: number, t: TokenDef, r: number): string {
  const a = (r * 7919 + t.index * 104_729) % 131_072;
  const share = BigInt(Math.floor(3e11 / Math.pow(r, 1.6)) + 1);
  const bal = (BigInt(t.total) * share) / 1_000_000_000_000n;
  return '{"address":"' + normalAddress(seed, a) + '","contract":"' + t.contract + '","balance":"' + bal.toString() + '"}';
}
