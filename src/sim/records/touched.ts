/**
 * The touched set: which addresses and contracts a block names, as a pure function of
 * (seed, height). When the head moves from h-1 to h, exactly the per-address and per-contract
 * answers of touchedAt(seed, h).addresses change (nax/profits aside: a per-stage global change,
 * flagged by stageEnd). This is the simulator's statement of truth for cache invalidation.
 */
import { NAX_STAGE_BLOCKS, PENDING_WINDOW, TOKENS } from '../constants.js';
import { contractAddress, normalAddress } from '../ids.js';
import { minerOf } from './coinbase.js';
import { contractAddressOf, deployedAt, extraSender, extraTarget, slotRecipient, slotSender } from './layout.js';
import { entryHeight } from './pending.js';
import { extrasBefore, txCountAt } from './txcount.js';

/** Addresses named by transaction (h, i): sender, recipient, called / transferred / deployed contract. */
export function txNames(seed: number, h: number, i: number, xb = extrasBefore(seed, h)): string[] {
  if (i === 0) {
    const from = normalAddress(seed, slotSender(h));
    const c = deployedAt(h);
    if (c >= 0) return [from, contractAddressOf(seed, c)];
    const to = normalAddress(seed, slotRecipient(h));
    return (h & 7) >= 4 ? [from, to, TOKENS[(h >>> 3) % TOKENS.length]!.contract] : [from, to];
  }
  const m = xb + i - 1;
  const t = extraTarget(m);
  return [normalAddress(seed, extraSender(m)), t >= 0 ? normalAddress(seed, t) : contractAddress(seed, -1 - t)];
}

/** Addresses named by block h's transactions, plus its coinbase (the miner, rewarded). */
export function blockNames(seed: number, h: number): Set<string> {
  const out = new Set<string>([normalAddress(seed, minerOf(seed, h))]);
  const xb = extrasBefore(seed, h);
  const n = txCountAt(seed, h);
  for (let i = 0; i < n; i++) for (const a of txNames(seed, h, i, xb)) out.add(a);
  return out;
}

/** Addresses named by the transactions that enter the pending pool when the head becomes h. */
export function poolEntryNames(seed: number, h: number): Set<string> {
  const out = new Set<string>();
  let xb = extrasBefore(seed, h + 1);
  for (let b = h + 1; b <= h + PENDING_WINDOW; b++) {
    const n = txCountAt(seed, b);
    for (let i = 0; i < n; i++) if (entryHeight(seed, b, i) === h) for (const a of txNames(seed, b, i, xb)) out.add(a);
    xb += n - 1;
  }
  return out;
}

export interface Touched {
  /** every address or contract whose per-address answers change on block h */
  addresses: Set<string>;
  /** block h ends a NAX stage: nax/profits of any address may gain a record */
  stageEnd: boolean;
}

export function touchedAt(seed: number, h: number): Touched {
  const addresses = blockNames(seed, h);
  for (const a of poolEntryNames(seed, h)) addresses.add(a);
  return { addresses, stageEnd: h % NAX_STAGE_BLOCKS === 0 };
}
