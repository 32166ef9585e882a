/**
 * NRC20 token holders (2.3.8), following from the transfers: the 4096 initial holders (the
 * addresses that send transfers, ranked by their initial allocation), then one holder per
 * confirmed transfer (each goes to a first-time holder; transfers never fail), oldest first.
 */
import type { TokenDef } from '../constants.js';
import { normalAddress } from '../ids.js';
import { L1, L1_START, TR_BASE } from './layout.js';
import { tokenTxCount, tokenTxHeight, transferAmount } from './tx.js';

export function tokenHolderCount(t: TokenDef, head: number): number {
  return L1 + tokenTxCount(t.index, head);
}

/** Holder of rank r (1-based). */
export function tokenHolderRecord(seed: number, t: TokenDef, r: number): string {
  let address: string;
  let bal: string;
  if (r <= L1) {
    address = normalAddress(seed, L1_START + ((r * 7919 + t.index * 104_729) % L1));
    const share = BigInt(Math.floor(3e11 / Math.pow(r, 1.6)) + 1);
    bal = ((BigInt(t.total) * share) / 1_000_000_000_000n).toString();
  } else {
    const m = r - L1 - 1;
    address = normalAddress(seed, TR_BASE * (t.index + 1) + m);
    bal = transferAmount(seed, tokenTxHeight(t.index, m), t.decimals);
  }
  return '{"address":"' + address + '","contract":"' + t.contract + '","balance":"' + bal + '"}';
}
