/**
 * The activity stream in front of the real simulator: touched sets are taken
 * from the simulator's truth (touchedAt) and published into the proxy's
 * Stages.touched, as the block reader publishes them.
 */
import { blockHash, touchedAt, txNames, type SimulatorHandle } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import type { TouchedSet } from '../../src/chain/touched.js';
import { untilHead } from '../helpers/until.js';

export const SEED = 5;
export const ACTIVITY = '/stream/activity';

export function truthSet(h: number, hash = blockHash(SEED, h)): TouchedSet {
  return {
    height: h,
    blockHash: hash,
    addresses: [...touchedAt(SEED, h).addresses],
    contracts: [],
    deployed: [],
    day: null,
    tokens: [],
    complete: true,
  };
}

/**
 * Reads block h's tx/list pages through the proxy as the block reader does (so they are cached), then publishes
 * its set. As the reader, it reads only once the proxy's head has reached h: a page read before is about a future
 * height, kept only until the head moves, and the stream's own read would then miss.
 */
export async function readAndPublish(proxy: ProxyHandle, h: number, set = truthSet(h)): Promise<void> {
  await untilHead(proxy.tracker, (b) => (b ?? 0) >= h, `the proxy's head at ${h}`);
  const r = await fetch(`${proxy.url}/tx/list?block_height=${h}&page=1&page_size=100`);
  if (r.status !== 200) throw new Error(`tx/list ${h}: ${r.status}`);
  await r.arrayBuffer();
  proxy.stream.activity.touched.publishBlock(set);
  await proxy.stream.activity.feed.settled();
}

/** A party of a transaction of block `h` that no block in `range` other than h names. */
export function onlyAt(h: number, range: readonly number[]): string {
  const others = new Set(range.filter((x) => x !== h).flatMap((x) => [...touchedAt(SEED, x).addresses]));
  const a = txNames(SEED, h, 0).find((x) => !others.has(x));
  if (a === undefined) throw new Error(`no address only at ${h}`);
  return a;
}

/** An address no block in `range` names. */
export function untouched(range: readonly number[], far: number): string {
  const named = new Set(range.flatMap((x) => [...touchedAt(SEED, x).addresses]));
  const a = [...touchedAt(SEED, far).addresses].find((x) => !named.has(x));
  if (a === undefined) throw new Error('no untouched address');
  return a;
}

export function txListRequests(sim: SimulatorHandle): number {
  return sim.stats()['tx/list'] ?? 0;
}

export interface ActivityData {
  height: number;
  block_hash: string;
  complete: boolean;
  txs: Record<string, unknown>[];
}
