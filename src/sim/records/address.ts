/** Addresses, native-coin holders and contracts (2.3.6, 2.3.9, 2.3.13). */
import { CONTRACT_EVERY_BLOCKS, tokenByContract } from '../constants.js';
import { contractAddress, decodeAddress, normalAddress, txHash } from '../ids.js';
import { hash4 } from '../rng.js';
import { ymd, dotZero } from '../render.js';
import { blockTime, foundHeight, normalAddressCount, normalSlots, nrcSlots, slotCount } from './tx.js';

const D_ADDR = 0x6164;
const TOP_BALANCE = 3.590135773e25;
const TOTAL_SUPPLY = 6.034366368807932e25;

export function contractDeployHeight(seed: number, j: number): number {
  return j * CONTRACT_EVERY_BLOCKS + 1 + (hash4(seed, D_ADDR, j, 1) % CONTRACT_EVERY_BLOCKS);
}

export function contractCount(seed: number, head: number): number {
  if (head < 1) return 0;
  const jm = Math.floor((head - 1) / CONTRACT_EVERY_BLOCKS);
  return jm + (contractDeployHeight(seed, jm) <= head ? 1 : 0);
}

/** Contract record of generated contract j. */
export function contractRecord(seed: number, j: number): string {
  const h = contractDeployHeight(seed, j);
  return contractJson(seed, contractAddress(seed, j), h, j);
}

function contractJson(seed: number, address: string, h: number, j: number): string {
  return (
    '{"block_timestamp":' + blockTime(h) * 1000 + ',"type":"NORMAL","address":"' + address + '","creator_address":"' +
    normalAddress(seed, hash4(seed, D_ADDR, j, 2) % normalAddressCount(h)) + '","deploy_tx_hash":"' + txHash(seed, h, 0) +
    '","block_height":' + h + '}'
  );
}

/** Confirmed transactions sent by normal address a (normal + NRC20 slot txs). */
export function sentCount(a: number, head: number): number {
  const n = normalSlots(a);
  const t = nrcSlots(a);
  return (n ? slotCount(n, head) : 0) + (t ? slotCount(t, head) : 0);
}

function balanceOfRank(r: number): string {
  return BigInt(Math.floor(TOP_BALANCE / Math.pow(r, 1.25))).toString();
}

export function holdersCount(seed: number, head: number): number {
  return normalAddressCount(head) + contractCount(seed, head);
}

/** Native-coin holder of rank r (1-based). */
export function holderRecord(seed: number, r: number, head: number): string {
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
    found = contractDeployHeight(seed, j);
    txCount = 1 + (hash4(seed, D_ADDR, j, 3) % 40);
  } else {
    const a = r - 2;
    address = normalAddress(seed, a);
    type = 87;
    nonce = sentCount(a, head);
    txCount = nonce + (hash4(seed, D_ADDR, a, 4) % (nonce + 2));
    found = foundHeight(a);
  }
  const bal = Math.floor(TOP_BALANCE / Math.pow(r, 1.25));
  const pct = Math.round((bal / TOTAL_SUPPLY) * 100 * 1e6) / 1e6;
  return (
    '{"tx_count":' + txCount + ',"percentage":' + pct + ',"address":"' + address + '","nonce":' + nonce + ',"type":' + type +
    ',"balance":"' + balanceOfRank(r) + '","date_of_found":"' + ymd(blockTime(found)) + '","rank":' + dotZero(r) + '}'
  );
}

/** address/info data; undefined when the address is not syntactically valid. */
export function addressInfo(seed: number, address: string, head: number): string {
  const dec = decodeAddress(seed, address);
  const tok = tokenByContract(address);
  if (tok) {
    const h = 1_200_000 + tok.index * 97_531;
    return (
      '{"contract":' + contractJson(seed, address, h, 900_000 + tok.index) + ',"address":"' + address +
      '","nonce":0,"type":88,"balance":"0","date_of_found":"' + ymd(blockTime(h)) + '"}'
    );
  }
  if (dec && dec.kind === 'normal' && foundHeight(dec.index) <= head) {
    const a = dec.index;
    return (
      '{"contract":{},"address":"' + address + '","nonce":' + sentCount(a, head) + ',"type":87,"balance":"' + balanceOfRank(a + 2) +
      '","date_of_found":"' + ymd(blockTime(foundHeight(a))) + '"}'
    );
  }
  if (dec && dec.kind === 'contract' && contractDeployHeight(seed, dec.index) <= head) {
    const h = contractDeployHeight(seed, dec.index);
    return (
      '{"contract":' + contractRecord(seed, dec.index) + ',"address":"' + address + '","nonce":0,"type":88,"balance":"' +
      balanceOfRank(dec.index === 0 ? 1 : normalAddressCount(head) + 1 + dec.index) + '","date_of_found":"' + ymd(blockTime(h)) + '"}'
    );
  }
  // unknown (never seen on chain) but well-formed: an empty account
  return (
    '{"contract":{},"address":"' + address + '","nonce":0,"type":' + (address.charCodeAt(1) === 50 ? 88 : 87) +
    ',"balance":"0","date_of_found":"' + ymd(blockTime(head)) + '"}'
  );
}
