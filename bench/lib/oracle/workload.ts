/**
 * The explorer workload: home-page polling, address pages over ~2000 addresses drawn Zipf (the
 * most popular first: the hot accounts, then the parties of recent blocks, then the token
 * senders), old and recent transaction and block details, token pages, holders and contracts.
 * The universe is read from the truth chain directly, so building it costs the upstream nothing.
 */
import { TOKENS, blockNames, normalAddress, txHash } from '../../../src/sim/index.js';
import { rng, weighted, zipf } from '../zipf.js';

export interface Universe {
  addresses: string[];
  /** newest first */
  recentTx: string[];
  oldTx: string[];
  oldBlocks: number[];
}

export function buildUniverse(seed: number, head: number, nAddresses = 2000): Universe {
  const set = new Set<string>();
  for (let a = 0; a < 16; a++) set.add(normalAddress(seed, a));
  for (let h = head; h > head - 400 && set.size < nAddresses * 0.6; h--) for (const a of blockNames(seed, h)) set.add(a);
  for (let a = 16; set.size < nAddresses; a++) set.add(normalAddress(seed, a));
  const recentTx: string[] = [];
  for (let h = head; h > head - 300; h--) recentTx.push(txHash(seed, h, 0));
  const random = rng(seed + 99);
  const oldTx: string[] = [];
  const oldBlocks: number[] = [];
  for (let i = 0; i < 2000; i++) {
    oldTx.push(txHash(seed, 100_000 + Math.floor(random() * (head - 200_000)), 0));
    oldBlocks.push(100_000 + Math.floor(random() * (head - 200_000)));
  }
  return { addresses: [...set], recentTx, oldTx, oldBlocks };
}

/** A seeded sampler of request paths; `head()` gives the current height for recent blocks. */
export function explorerSampler(u: Universe, head: () => number, seed = 7): () => string {
  const random = rng(seed);
  const addr = zipf(u.addresses.length, 1.0, random);
  const recent = zipf(u.recentTx.length, 1.0, random);
  const old = zipf(u.oldTx.length, 0.8, random);
  const token = (): string => TOKENS[Math.floor(random() * TOKENS.length)]!.name;
  const small = (n: number): number => 1 + Math.floor(random() * random() * n);
  const pick = weighted<() => string>(
    [
      // home page polling
      [12, () => '/block/max'],
      [6, () => '/tx/list'],
      [5, () => '/block/list'],
      [3, () => '/chain/summary'],
      [2, () => '/tx/list/pending'],
      [1, () => '/tx/count/today'],
      [1, () => '/token/list'],
      [1, () => '/nax/summary'],
      [2, () => `/tx/list?page=${1 + small(5)}`],
      // address pages
      [12, () => `/tx/listByAddress?address=${u.addresses[addr()]}`],
      [10, () => `/address/info?address=${u.addresses[addr()]}`],
      [4, () => `/tx/nrc20?address=${u.addresses[addr()]}`],
      // transaction and block details
      [8, () => `/tx/detail?hash=${u.recentTx[recent()]}`],
      [6, () => `/tx/detail?hash=${u.oldTx[old()]}`],
      [5, () => `/block/detail?h=${head() - 1 - Math.floor(random() * 30)}`],
      [5, () => `/block/detail?h=${u.oldBlocks[old()]}`],
      // token pages, holders, contracts
      [3, () => `/token/holders?token=${token()}`],
      [3, () => `/token/tx/list?token=${token()}`],
      [3, () => `/holders?page=${small(5)}`],
      [2, () => `/contracts?page=${small(3)}`],
    ],
    random,
  );
  return () => pick()();
}
