/** Block records (2.3.4, 2.3.5). */
import { CHAIN_ID, NODE_INFOS } from '../constants.js';
import { blockHash, normalAddress } from '../ids.js';
import { hash4, hexWords, scaled } from '../rng.js';
import { blockTime } from './tx.js';
import { txCountAt } from './txcount.js';

const D_BLOCK = 0x626b;
const DYNASTY_SIZE = 21;
const dynastyCache = new Map<number, readonly string[]>();
const nodeInfoJson = NODE_INFOS.map((n) => JSON.stringify(n));

/** The 21 block producers (sorted), fixed per seed. */
export function dynasty(seed: number): readonly string[] {
  let d = dynastyCache.get(seed);
  if (!d) {
    const list: string[] = [];
    for (let j = 0; j < DYNASTY_SIZE; j++) list.push(normalAddress(seed, 200_000 + j * 37));
    d = list.sort();
    dynastyCache.set(seed, d);
  }
  return d;
}

function minerIndex(seed: number, h: number): number {
  return (h + (hash4(seed, D_BLOCK, 0x6d) % DYNASTY_SIZE)) % DYNASTY_SIZE;
}

function blockCommon(seed: number, h: number): string {
  return (
    '"block_hash":"' + blockHash(seed, h) + '","parent_hash":"' + blockHash(seed, h - 1) + '","height":' + h +
    ',"tx_count":' + txCountAt(seed, h) + ',"nonce":0,"coinbase":"' + normalAddress(seed, hash4(seed, D_BLOCK, h, 1) % 300_000) +
    '","timestamp":' + blockTime(h) + ',"chain_id":' + CHAIN_ID
  );
}

/** Block list item. */
export function blockRecord(seed: number, h: number, isFinal: boolean): string {
  return (
    '{' + blockCommon(seed, h) + ',"state_root":"' + hexWords(seed, D_BLOCK, h, 2, 8) + '","txs_root":"' +
    hexWords(seed, D_BLOCK, h, 3, 8) + '","events_root":"' + hexWords(seed, D_BLOCK, h, 4, 8) + '","miner":"' +
    dynasty(seed)[minerIndex(seed, h)]! + '","randomSeed":"' + hexWords(seed, D_BLOCK, h, 5, 8) + '","randomProof":"' +
    hexWords(seed, D_BLOCK, h, 6, 33).slice(0, 258) + '","is_finality":' + isFinal + '}'
  );
}

/** Block detail (data of block/detail). */
export function blockDetailRecord(seed: number, h: number, isFinal: boolean, nowMs: number): string {
  const n = txCountAt(seed, h);
  const mi = minerIndex(seed, h);
  const d = dynasty(seed);
  return (
    '{"gas_info":{"gas_limit":"' + n * 200000 + '","gas_reward":"' + scaled(n * 4, 14) + '","avg_gas_price":"' +
    (n > 0 ? '20000000000' : '0') + '"},"dynasty":["' + d.join('","') + '"],"node":{"period":' + (Math.floor(h / 210) + 48) +
    ',"info":' + nodeInfoJson[mi % nodeInfoJson.length]! + '},' + blockCommon(seed, h) + ',"miner":"' + d[mi]! +
    '","is_finality":' + isFinal + ',"server_timestamp":' + nowMs + '}'
  );
}
