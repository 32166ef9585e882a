/** Block records (2.3.4, 2.3.5). The coinbase (reward address) is the block's miner. */
import { CHAIN_ID, NODE_INFOS } from '../constants.js';
import { blockHash } from '../ids.js';
import { hexWords, scaled } from '../rng.js';
import { dynasty, minerIndex } from './coinbase.js';
import { blockTime } from './tx.js';
import { txCountAt } from './txcount.js';

const D_BLOCK = 0x626b;
const nodeInfoJson = NODE_INFOS.map((n) => JSON.stringify(n));

function blockCommon(seed: number, h: number): string {
  return (
    '"block_hash":"' +
    blockHash(seed, h) +
    '","parent_hash":"' +
    blockHash(seed, h - 1) +
    '","height":' +
    h +
    ',"tx_count":' +
    txCountAt(seed, h) +
    ',"nonce":0,"coinbase":"' +
    dynasty(seed)[minerIndex(seed, h)]! +
    '","timestamp":' +
    blockTime(h) +
    ',"chain_id":' +
    CHAIN_ID
  );
}

/** Block list item. */
export function blockRecord(seed: number, h: number, isFinal: boolean): string {
  return (
    '{' +
    blockCommon(seed, h) +
    ',"state_root":"' +
    hexWords(seed, D_BLOCK, h, 2, 8) +
    '","txs_root":"' +
    hexWords(seed, D_BLOCK, h, 3, 8) +
    '","events_root":"' +
    hexWords(seed, D_BLOCK, h, 4, 8) +
    '","miner":"' +
    dynasty(seed)[minerIndex(seed, h)]! +
    '","randomSeed":"' +
    hexWords(seed, D_BLOCK, h, 5, 8) +
    '","randomProof":"' +
    hexWords(seed, D_BLOCK, h, 6, 33).slice(0, 258) +
    '","is_finality":' +
    isFinal +
    '}'
  );
}

/** Block detail (data of block/detail). */
export function blockDetailRecord(seed: number, h: number, isFinal: boolean, nowMs: number): string {
  const n = txCountAt(seed, h);
  const mi = minerIndex(seed, h);
  const d = dynasty(seed);
  return (
    '{"gas_info":{"gas_limit":"' +
    n * 200000 +
    '","gas_reward":"' +
    scaled(n * 4, 14) +
    '","avg_gas_price":"' +
    (n > 0 ? '20000000000' : '0') +
    '"},"dynasty":["' +
    d.join('","') +
    '"],"node":{"period":' +
    (Math.floor(h / 210) + 48) +
    ',"info":' +
    nodeInfoJson[mi % nodeInfoJson.length]! +
    '},' +
    blockCommon(seed, h) +
    ',"miner":"' +
    d[mi]! +
    '","is_finality":' +
    isFinal +
    ',"server_timestamp":' +
    nowMs +
    '}'
  );
}
