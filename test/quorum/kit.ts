/**
 * Helpers of the quorum tests: chain fakes (test/helpers/chain-fake.ts) whose
 * block/detail answers a test chooses per upstream (the honest recorded block,
 * or one with another block hash), and readers of /status.
 */
import { sendJson } from '../helpers/fake-upstream.js';
import { dataOf, get } from '../helpers/replica.js';
import { blockDetailAt, SLOWER_MS, startChainFake, type ChainFake } from '../helpers/chain-fake.js';

export const HEAD = 4_842_503;
/** A final block well below the head. */
export const FINAL = HEAD - 1000;

/** The recorded block at `h`, final: what honest upstreams answer. */
export const honestBlock = (h: number): string => blockDetailAt(h, true);

/** The same block with another (schema-valid) block hash: a lie. */
export const forgedBlock = (h: number, fill = 'ab'): string =>
  honestBlock(h).replace(/"block_hash":"[0-9a-f]{64}"/, `"block_hash":"${fill.repeat(32)}"`);

/** block/detail answers `body(h)` on this fake from now on. */
export function answerBlocks(fake: ChainFake, body: (h: number) => string): void {
  fake.on('block/detail', (req, res) => {
    const h = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('h'));
    sendJson(res, 200, body(h));
  });
}

/** Chain fakes at `heads`, closed after the test (`scope`: perTest() of test/helpers/chain-fake.ts). */
export async function fakesAt<const H extends readonly number[]>(
  scope: { fakes: ChainFake[] },
  ...heads: H
): Promise<{ [K in keyof H]: ChainFake }> {
  const fakes = await Promise.all(heads.map((h) => startChainFake(h)));
  scope.fakes.push(...fakes);
  return fakes as { [K in keyof H]: ChainFake };
}

/** Two honest upstreams and one answering forged final blocks, the liar by far the fastest (asked first). */
export async function honestPairAndLiar(scope: {
  fakes: ChainFake[];
}): Promise<readonly [ChainFake, ChainFake, ChainFake]> {
  const fakes = await fakesAt(scope, HEAD, HEAD, HEAD);
  const [a, b, liar] = fakes;
  answerBlocks(a, honestBlock);
  answerBlocks(b, honestBlock);
  answerBlocks(liar, (h) => forgedBlock(h));
  a.delay(SLOWER_MS);
  b.delay(SLOWER_MS);
  return fakes;
}

/** The `block_hash` a client was served. */
export const servedHash = (text: string): unknown => dataOf(text)['block_hash'];

/** block/detail requests a fake has received. */
export const blockAsks = (fake: ChainFake): number => fake.count('/block/detail');

interface DisputeRow {
  key: string;
  endpoint: string;
  outcome: 'majority' | 'unresolved';
  versions: { hash: string; upstreams: string[] }[];
}

export interface ConsensusStatus {
  quorum: number;
  disputes: number;
  recent: DisputeRow[];
}

/** `consensus` of GET /status. */
export async function consensusStatus(base: string): Promise<ConsensusStatus | null> {
  return (dataOf((await get(base, '/status')).text)['consensus'] ?? null) as ConsensusStatus | null;
}

/** `sittingOut` of one upstream row of GET /status (undefined while it plays). */
export async function benchOf(base: string, name: string): Promise<{ reason: string; until: number } | undefined> {
  const rows = (dataOf((await get(base, '/status')).text)['upstreams'] ?? []) as {
    name: string;
    sittingOut?: { reason: string; until: number };
  }[];
  return rows.find((r) => r.name === name)?.sittingOut;
}
