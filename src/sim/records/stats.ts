/** Daily statistics (2.3.14, 2.3.15) in chain time (UTC days). */
import { BLOCKS_PER_DAY, BLOCK_SECONDS } from '../constants.js';
import { hash4 } from '../rng.js';
import { isoLocal, ymd } from '../render.js';
import { contractCount } from './address.js';
import { blockTime, genesisTime, normalAddressCount } from './tx.js';
import { txPrefix } from './txcount.js';

const D_STATS = 0x7374;

/** First height whose block time is >= t. */
function heightAt(t: number): number {
  return Math.max(1, Math.ceil((t - genesisTime()) / BLOCK_SECONDS));
}

export function txCountHistory(seed: number, head: number, days: number): string {
  const today = Math.floor(blockTime(head) / 86400);
  let out = '';
  for (let k = 1; k <= days; k++) {
    const day = today - k;
    const h0 = heightAt(day * 86400);
    const h1 = Math.min(heightAt((day + 1) * 86400), head + 1);
    const count = Math.max(0, txPrefix(seed, h1) - txPrefix(seed, h0));
    const r = hash4(seed, D_STATS, day, 1);
    const price = r % 10 === 0 ? 0 : 0.3 + (hash4(seed, D_STATS, day, 2) / 4294967296) * 0.3;
    out +=
      (k > 1 ? ',' : '') +
      '{"price":' +
      price +
      ',"date":"' +
      ymd(day * 86400) +
      '","transaction_count":' +
      count +
      '}';
  }
  return '[' + out + ']';
}

export function txCountToday(seed: number, head: number): number {
  return txPrefix(seed, head + 1) - txPrefix(seed, Math.max(1, head + 1 - BLOCKS_PER_DAY));
}

/** Most recent day first; the third day is repeated, as the real service does. */
export function addressCountHistory(seed: number, head: number, days: number): string {
  const today = Math.floor(blockTime(head) / 86400);
  let out = '';
  for (let k = 0; k < days; k++) {
    const day = today - 1 - (k < 3 ? k : k - 1);
    const hEnd = Math.min(head, heightAt((day + 1) * 86400) - 1);
    const stamp = isoLocal((day + 1) * 86400);
    const cc = contractCount(seed, hEnd);
    out +=
      (k > 0 ? ',' : '') +
      '{"created_at":"' +
      stamp +
      '","updated_at":"' +
      stamp +
      '","date":"' +
      ymd(day * 86400) +
      '","all_address_count":' +
      (normalAddressCount(hEnd) + cc) +
      ',"contract_count":' +
      cc +
      '}';
  }
  return '[' + out + ']';
}
