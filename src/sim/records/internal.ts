/**
 * Internal transfers (the `internalTransfers` option): value a contract pays during a call to an
 * address the transaction does not name. No list shows them and `touchedAt` leaves them out (it
 * states what blocks name); only the beneficiary's `address/info` balance moves.
 *
 * The calls with extra number m ≡ 6 (mod 16) (half the calls: ⌊m/8⌋ even) each pay INTERNAL_UNITS
 * to normal address 16 + (⌊m/16⌋ mod 1024), minted by the contract (contract balances stay "0"),
 * whatever the call's status. Beneficiary 16 + r is so paid by extras 16 r + 6 + 16384 k: one
 * progression, counted in O(1) up to an extra-number limit.
 */
import { normalAddress } from '../ids.js';
import { L1_START } from './layout.js';
import { extraHeight, extrasBefore, txCountAt } from './txcount.js';

/** 10^16 wei, in units of 10^14 wei (value.ts). */
export const INTERNAL_UNITS = 100;
/** Beneficiaries are normal addresses BENEFICIARY_START .. BENEFICIARY_START + BENEFICIARIES − 1. */
const BENEFICIARY_START = L1_START;
const BENEFICIARIES = 1024;
const PAYING = 16;
const PAYING_REST = 6;
const PERIOD = PAYING * BENEFICIARIES;

/** Beneficiary (normal index) of extra m, or -1 when m pays no internal transfer. */
function beneficiaryOf(m: number): number {
  return m % PAYING === PAYING_REST ? BENEFICIARY_START + (Math.floor(m / PAYING) % BENEFICIARIES) : -1;
}

export function isBeneficiary(a: number): boolean {
  return a >= BENEFICIARY_START && a < BENEFICIARY_START + BENEFICIARIES;
}

/** Internal transfers paid to normal address a by extras 0..limM (0 for non-beneficiaries). */
export function internalCreditsUpTo(a: number, limM: number): number {
  if (!isBeneficiary(a)) return 0;
  const base = PAYING * (a - BENEFICIARY_START) + PAYING_REST;
  return limM < base ? 0 : Math.floor((limM - base) / PERIOD) + 1;
}

/** Height of the block holding beneficiary a's first internal transfer (Infinity for others). */
export function firstCreditHeight(seed: number, a: number): number {
  return isBeneficiary(a) ? extraHeight(seed, PAYING * (a - BENEFICIARY_START) + PAYING_REST) : Infinity;
}

/** Normal indexes credited by block h's internal transfers, in the block's order (one per paying call). */
export function internalCreditIndexes(seed: number, h: number): number[] {
  const out: number[] = [];
  const xb = extrasBefore(seed, h);
  const n = txCountAt(seed, h) - 1;
  for (let m = xb; m < xb + n; m++) {
    const b = beneficiaryOf(m);
    if (b >= 0) out.push(b);
  }
  return out;
}

/**
 * Addresses whose balance block h raises by internal transfers (none of them named by the block
 * for that reason): what `touchedAt(seed, h)` does not state, with the option on.
 */
export function internalCreditsAt(seed: number, h: number): string[] {
  return internalCreditIndexes(seed, h).map((a) => normalAddress(seed, a));
}
