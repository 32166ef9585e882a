/** Addresses, native-coin holders and contracts (2.3.6, 2.3.9, 2.3.13), derived from the ledger. */
import { contractAddress, normalAddress, txHash } from '../ids.js';
import { ymd, dotZero } from '../render.js';
import {
  contractAddressOf,
  contractCountAt,
  contractStreams,
  deployHeight,
  normalStreams,
  slotSender,
  TOKEN_DEPLOY_INDEX,
} from './layout.js';
import { account, balanceOf, firstEvent, limitsAt, tally, type Limits } from './ledger.js';
import { coinbaseStream } from './coinbase.js';
import { blockTime, genesisTime, normalAddressCount } from './tx.js';
import { firstCreditHeight, INTERNAL_UNITS, internalCreditsUpTo, isBeneficiary } from './internal.js';

const TOP_BALANCE = 3.590135773e25;
const TOTAL_SUPPLY = 6.034366368807932e25;

export function contractCount(_seed: number, head: number): number {
  return contractCountAt(head);
}

/** Contract record of deploy slot c (a generated contract or a token contract). */
export function contractRecord(seed: number, c: number): string {
  const h = deployHeight(c);
  return (
    '{"block_timestamp":' +
    blockTime(h) * 1000 +
    ',"type":"NORMAL","address":"' +
    contractAddressOf(seed, c) +
    '","creator_address":"' +
    normalAddress(seed, slotSender(h)) +
    '","deploy_tx_hash":"' +
    txHash(seed, h, 0) +
    '","block_height":' +
    h +
    '}'
  );
}

function balanceOfRank(r: number): string {
  return BigInt(Math.floor(TOP_BALANCE / Math.pow(r, 1.25))).toString();
}

export function holdersCount(seed: number, head: number): number {
  return normalAddressCount(head) + contractCount(seed, head);
}

/**
 * Native-coin holder of rank r (1-based): a ranking statistic (balances by rank), with the
 * ledger's nonce, tx count and first appearance of the address it names.
 */
export function holderRecord(seed: number, r: number, head: number, lim: Limits = limitsAt(seed, head)): string {
  const n = normalAddressCount(head);
  let address: string;
  let type: number;
  let nonce = 0;
  let txCount: number;
  let found: number;
  if (r === 1 || r > n + 1) {
    const j = r === 1 ? 0 : r - n - 1;
    address = contractAddress(seed, j);
    type = 88;
    found = deployHeight(j);
    txCount = tally({ kind: 'contract', index: j, streams: contractStreams(j), rewards: null }, lim).events;
  } else {
    const a = r - 2;
    address = normalAddress(seed, a);
    type = 87;
    const acc = { kind: 'normal' as const, index: a, streams: normalStreams(a), rewards: coinbaseStream(seed, a) };
    const t = tally(acc, lim);
    nonce = t.sent;
    txCount = t.events;
    found = Math.min(firstEvent(seed, acc), head);
  }
  const bal = Math.floor(TOP_BALANCE / Math.pow(r, 1.25));
  const pct = Math.round((bal / TOTAL_SUPPLY) * 100 * 1e6) / 1e6;
  return (
    '{"tx_count":' +
    txCount +
    ',"percentage":' +
    pct +
    ',"address":"' +
    address +
    '","nonce":' +
    nonce +
    ',"type":' +
    type +
    ',"balance":"' +
    balanceOfRank(r) +
    '","date_of_found":"' +
    ymd(blockTime(found)) +
    '","rank":' +
    dotZero(r) +
    '}'
  );
}

/** Date written for an address the chain has not named (yet): the genesis date, whatever the head. */
function unseen(address: string): string {
  return (
    '{"contract":{},"address":"' +
    address +
    '","nonce":0,"type":' +
    (address.charCodeAt(1) === 50 ? 88 : 87) +
    ',"balance":"0","date_of_found":"' +
    ymd(genesisTime()) +
    '"}'
  );
}

/**
 * address/info data: the account as the ledger has it at head; with `internal`, a beneficiary's
 * balance also counts the internal transfers paid to it (internal.ts), and it exists from the first.
 */
export function addressInfo(seed: number, address: string, head: number, internal = false): string {
  const acc = account(seed, address);
  if (acc.kind === 'token' || acc.kind === 'contract') {
    const c = acc.kind === 'token' ? TOKEN_DEPLOY_INDEX[acc.index]! : acc.index;
    const h = deployHeight(c);
    if (acc.streams.length === 0 || h > head) return unseen(address);
    return (
      '{"contract":' +
      contractRecord(seed, c) +
      ',"address":"' +
      address +
      '","nonce":0,"type":88,"balance":"0","date_of_found":"' +
      ymd(blockTime(h)) +
      '"}'
    );
  }
  const paid = internal && isBeneficiary(acc.index);
  let found = acc.kind === 'normal' ? firstEvent(seed, acc) : Infinity;
  if (paid) found = Math.min(found, firstCreditHeight(seed, acc.index));
  if (found > head) return unseen(address);
  const lim = paid ? limitsAt(seed, head) : limitsAt(seed, head, acc.streams);
  const credited = paid ? INTERNAL_UNITS * internalCreditsUpTo(acc.index, lim.m) : 0;
  return (
    '{"contract":{},"address":"' +
    address +
    '","nonce":' +
    tally(acc, lim).sent +
    ',"type":87,"balance":"' +
    balanceOf(acc, lim, credited) +
    '","date_of_found":"' +
    ymd(blockTime(found)) +
    '"}'
  );
}
