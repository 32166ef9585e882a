/**
 * The explorer workload: home-page polling, address pages over ~2000 addresses drawn Zipf (the
 * most popular first: the hot accounts, then the parties of recent blocks, then the token
 * senders), transaction details (recent confirmed ones under the head, the pool's first page, old
 * ones), block details (the newest blocks by height and, a fifth of them, by hash; old ones),
 * token pages, holders and contracts. The universe is read from the truth chain's seed directly,
 * so building it costs the upstream nothing.
 * Each kind of request says how it is drawn and every path it can draw (the crawl's list).
 */
import { SimChain, TOKENS, blockHash, blockNames, normalAddress, txHash } from '../../../src/sim/index.js';
import { rng, weighted, zipf } from '../zipf.js';

export interface Universe {
  seed: number;
  addresses: string[];
  oldTx: string[];
  oldBlocks: number[];
}

export function buildUniverse(seed: number, head: number, nAddresses = 2000): Universe {
  const set = new Set<string>();
  for (let a = 0; a < 16; a++) set.add(normalAddress(seed, a));
  for (let h = head; h > head - 400 && set.size < nAddresses * 0.6; h--)
    for (const a of blockNames(seed, h)) set.add(a);
  for (let a = 16; set.size < nAddresses; a++) set.add(normalAddress(seed, a));
  const random = rng(seed + 99);
  const oldTx: string[] = [];
  const oldBlocks: number[] = [];
  for (let i = 0; i < 2000; i++) {
    oldTx.push(txHash(seed, 100_000 + Math.floor(random() * (head - 200_000)), 0));
    oldBlocks.push(100_000 + Math.floor(random() * (head - 200_000)));
  }
  return { seed, addresses: [...set], oldTx, oldBlocks };
}

/** One kind of request: its weight (of 97), one seeded draw, and every path it can draw. */
type Kind = readonly [weight: number, draw: () => string, all: () => string[]];

const RECENT_BLOCKS = 30;
/** Recent confirmed transactions: the slot transaction of one of the blocks under the head, newest first. */
const RECENT_TXS = 300;
/** The pool's first page as an explorer shows it (`tx/list/pending`, default page size). */
const POOL_PAGE = 20;
const TX_PAGES = 5;
const HOLDER_PAGES = 5;
const CONTRACT_PAGES = 3;

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

/** The hashes on the pool's first page at `head` (the simulator's pool is a function of seed and head). */
function poolPage(seed: number): (head: number) => string[] {
  let at = -1;
  let page: string[] = [];
  return (head) => {
    if (head === at) return page;
    const pool = new SimChain({ seed, startHeight: head, finalityDepth: 15, blockIntervalMs: 0 }).pending();
    const n = Math.min(POOL_PAGE, pool.heights.length);
    page = Array.from({ length: n }, (_, k) => txHash(seed, pool.heights[k]!, pool.indexes[k]!));
    at = head;
    return page;
  };
}

function kinds(u: Universe, head: () => number, random: () => number): Kind[] {
  const addr = zipf(u.addresses.length, 1.0, random);
  const recent = zipf(RECENT_TXS, 1.0, random);
  const pool = poolPage(u.seed);
  const recentBlock = (): number => head() - 1 - Math.floor(random() * RECENT_BLOCKS);
  const old = zipf(u.oldTx.length, 0.8, random);
  const token = (): string => TOKENS[Math.floor(random() * TOKENS.length)]!.name;
  const small = (n: number): number => 1 + Math.floor(random() * random() * n);
  const fixed = (w: number, p: string): Kind => [w, () => p, () => [p]];
  const perAddress = (w: number, p: string): Kind => [
    w,
    () => p + u.addresses[addr()]!,
    () => u.addresses.map((a) => p + a),
  ];
  const perToken = (w: number, p: string): Kind => [w, () => p + token(), () => TOKENS.map((t) => p + t.name)];
  return [
    // home page polling
    fixed(12, '/block/max'),
    fixed(6, '/tx/list'),
    fixed(5, '/block/list'),
    fixed(3, '/chain/summary'),
    fixed(2, '/tx/list/pending'),
    fixed(1, '/tx/count/today'),
    fixed(1, '/token/list'),
    fixed(1, '/nax/summary'),
    [2, () => `/tx/list?page=${1 + small(TX_PAGES)}`, () => range(2, TX_PAGES).map((p) => `/tx/list?page=${p}`)],
    // address pages
    perAddress(12, '/tx/listByAddress?address='),
    perAddress(10, '/address/info?address='),
    perAddress(4, '/tx/nrc20?address='),
    // transaction and block details
    [
      8,
      () => `/tx/detail?hash=${txHash(u.seed, head() - recent(), 0)}`,
      () => range(head() - RECENT_TXS + 1, RECENT_TXS).map((h) => `/tx/detail?hash=${txHash(u.seed, h, 0)}`),
    ],
    [
      3,
      () => {
        const page = pool(head());
        return `/tx/detail?hash=${page[Math.floor(random() * page.length)] ?? txHash(u.seed, head(), 0)}`;
      },
      () => [...pool(head()), txHash(u.seed, head(), 0)].map((h) => `/tx/detail?hash=${h}`),
    ],
    [6, () => `/tx/detail?hash=${u.oldTx[old()]}`, () => u.oldTx.map((h) => `/tx/detail?hash=${h}`)],
    [
      4,
      () => `/block/detail?h=${recentBlock()}`,
      () => range(head() - RECENT_BLOCKS, RECENT_BLOCKS).map((h) => `/block/detail?h=${h}`),
    ],
    [
      1,
      () => `/block/detail?h=${blockHash(u.seed, recentBlock())}`,
      () => range(head() - RECENT_BLOCKS, RECENT_BLOCKS).map((h) => `/block/detail?h=${blockHash(u.seed, h)}`),
    ],
    [5, () => `/block/detail?h=${u.oldBlocks[old()]}`, () => u.oldBlocks.map((h) => `/block/detail?h=${h}`)],
    // token pages, holders, contracts
    perToken(3, '/token/holders?token='),
    perToken(3, '/token/tx/list?token='),
    [3, () => `/holders?page=${small(HOLDER_PAGES)}`, () => range(1, HOLDER_PAGES).map((p) => `/holders?page=${p}`)],
    [
      2,
      () => `/contracts?page=${small(CONTRACT_PAGES)}`,
      () => range(1, CONTRACT_PAGES).map((p) => `/contracts?page=${p}`),
    ],
  ];
}

/** A seeded sampler of request paths; `head()` gives the current height for recent blocks. */
export function explorerSampler(u: Universe, head: () => number, seed = 7): () => string {
  const random = rng(seed);
  const pick = weighted(
    kinds(u, head, random).map(([w, draw]) => [w, draw] as const),
    random,
  );
  return () => pick()();
}

/** Every distinct path the sampler can draw now (recent blocks: the ones under `head()`). */
export function universePaths(u: Universe, head: () => number): string[] {
  return [...new Set(kinds(u, head, rng(0)).flatMap(([, , all]) => all()))];
}
