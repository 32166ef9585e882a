/** NAX stages (2.3.10 - 2.3.12). Stage s covers [(s+508)*6000, (s+509)*6000). */
import { NAX_STAGE_BLOCKS, NAX_STAGE_OFFSET } from '../constants.js';
import { txHash } from '../ids.js';
import { hash4, scaled } from '../rng.js';
import { isoLocal } from '../render.js';
import { account, firstEvent } from './ledger.js';
import { blockTime } from './tx.js';

const D_NAX = 0x6e61;
const D = 3_430_000_000_000_000n;

function stageStart(s: number): number {
  return (s + NAX_STAGE_OFFSET) * NAX_STAGE_BLOCKS;
}

/** Last completed stage at head (-1 when none). */
export function lastStage(head: number): number {
  return Math.max(-1, Math.floor(head / NAX_STAGE_BLOCKS) - NAX_STAGE_OFFSET - 1);
}

export function currentStageEnd(head: number): number {
  return (Math.floor(head / NAX_STAGE_BLOCKS) + 1) * NAX_STAGE_BLOCKS;
}

function wobble(seed: number, s: number, k: number, mod: number): bigint {
  return s < 0 ? 0n : BigInt(hash4(seed, D_NAX, s, k) % mod) * 1000n;
}

function totalDistributed(seed: number, s: number): bigint {
  return 200_000_000_000_000_000n + D * BigInt(s + 1) - wobble(seed, s, 1, 1_000_000_000);
}
function totalDestroyed(seed: number, s: number): bigint {
  return 300_000_000_000_000_000n + 3_990_000_000_000_000n * BigInt(s + 1) - wobble(seed, s, 2, 1_000_000_000);
}

function float(seed: number, s: number, k: number, lo: number, span: number): number {
  return lo + (hash4(seed, D_NAX, s, k) / 4294967296) * span;
}

function estimate(seed: number, s: number): string {
  return String(7_500_000_000_000_000 - s * 270_000_000_000 - (hash4(seed, D_NAX, s, 9) % 1_000_000_000));
}

export function lastDistributed(seed: number, s: number): string {
  return (totalDistributed(seed, s) - totalDistributed(seed, s - 1)).toString();
}
export function totalDistributedText(seed: number, s: number): string {
  return totalDistributed(seed, s).toString();
}
export function pledged(seed: number, s: number): string {
  return (
    27_000_000_000_000_000_000_000_000n +
    BigInt(hash4(seed, D_NAX, s, 7) % 1_000_000_000) * 1_000_000_000_000_000n
  ).toString();
}
export function totalNas(seed: number, s: number): string {
  return scaled(58_000_000 + s * 7000 + (hash4(seed, D_NAX, s, 8) % 3_000_000), 18);
}
export function estimateText(seed: number, s: number): string {
  return estimate(seed, s);
}

/** NAX distribution record of stage s. */
export function naxRecord(seed: number, s: number): string {
  const start = stageStart(s);
  const end = start + NAX_STAGE_BLOCKS;
  const ts = blockTime(start);
  const vote =
    480_000_000_000_000_000n + BigInt(s) * 120_000_000_000_000n + BigInt(hash4(seed, D_NAX, s, 3)) * 1_000_000n;
  const frac = String(hash4(seed, D_NAX, s, 4) % 10000).padStart(4, '0');
  const dist = totalDistributed(seed, s);
  const destroyed = totalDestroyed(seed, s);
  return (
    '{"nas_price":' +
    float(seed, s, 5, 0.3, 0.3) +
    ',"nax_price":' +
    float(seed, s, 6, 0.002, 0.001) +
    ',"start_timestamp":"' +
    isoLocal(ts) +
    '","end_timestamp":"' +
    isoLocal(blockTime(end)) +
    '","total_distributed_nax":"' +
    dist +
    '","total_destroyed_nax":"' +
    destroyed +
    '","total_vote_nax":"' +
    vote +
    '.' +
    frac +
    '","avg_reward_rate":' +
    Math.round(float(seed, s, 10, 0.9, 0.1) * 1e6) / 1e6 +
    ',"created_at":"' +
    isoLocal(ts + 240 + (hash4(seed, D_NAX, s, 11) % 60)) +
    '","stage":' +
    s +
    ',"start":' +
    start +
    ',"end":' +
    end +
    ',"estimate_nax":"' +
    estimate(seed, s) +
    '","distributed_nax":"' +
    (dist - totalDistributed(seed, s - 1)) +
    '","destroyed_nax":"' +
    (destroyed - totalDestroyed(seed, s - 1)) +
    '","total_supplied_nax":"' +
    (dist - 108_119n) +
    '","pledged_nas":"' +
    pledged(seed, s) +
    '","total_supplied_nas":"' +
    totalNas(seed, s) +
    '","status":1}'
  );
}

export interface ProfitList {
  count: number;
  first: number;
  period: number;
  a: number;
}

/**
 * Stages in which address takes part: every `period` stages after it first appears. A per-stage
 * global change: lists grow only on the block that ends a stage (head mod 6000 = 0).
 */
export function profitList(seed: number, address: string, head: number): ProfitList {
  const acc = account(seed, address);
  const sMax = lastStage(head);
  const found = acc.kind === 'normal' ? firstEvent(seed, acc) : Infinity;
  if (found > head) return { count: 0, first: 0, period: 1, a: 0 };
  const a = acc.index;
  const period = 3 + (hash4(seed, D_NAX, a, 12) % 20);
  // the first stage that ends after the address appears: records only ever appear at stage ends
  const lo = Math.max(0, Math.floor(found / NAX_STAGE_BLOCKS) - NAX_STAGE_OFFSET + 1);
  const first = lo + ((period - ((lo + a) % period)) % period);
  const count = first > sMax ? 0 : Math.floor((sMax - first) / period) + 1;
  return { count, first, period, a };
}

/** k-th (0 = oldest) profit record of the list. */
export function profitRecord(seed: number, l: ProfitList, address: string, k: number): string {
  const s = l.first + k * l.period;
  const r = hash4(seed, D_NAX, l.a, s);
  const h = stageStart(s) + NAX_STAGE_BLOCKS - 1 - (r % 50);
  const fee = r % 6 === 0;
  return (
    '{"address":"' +
    address +
    '","tx_hash":"' +
    txHash(seed, h, 0) +
    '","block_timestamp":' +
    blockTime(h) +
    ',"profit":"' +
    (fee ? '-1000000000' : scaled(1 + ((r >>> 8) % 99999), 6)) +
    '","stage":' +
    (fee ? -1 : s) +
    ',"source":' +
    (fee ? 1 : 0) +
    ',"block_height":' +
    h +
    '}'
  );
}
