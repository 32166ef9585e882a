/**
 * A head that went backwards: the upstream restarts from an older height (a
 * simulator started again on the same port), every probe reports the lower
 * head, and the proxy follows it down. Everything recorded above the new head
 * is lowered, so caching resumes at once: within two blocks every endpoint
 * hits again, instead of missing until the chain passes the old height.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_START_HEIGHT, startSimulator, touchedAt, txHash, type SimulatorHandle } from '../../src/sim/index.js';
import { untilHead } from '../helpers/until.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, invalidationStatus, PRECISE, SEED } from './kit.js';

const START = DEFAULT_START_HEIGHT;
const UP = 30;

let sim: SimulatorHandle | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  proxy = undefined;
  sim = undefined;
});

/** One request per endpoint (all 22), about things that exist at height `base`. */
function paths(base = START): string[] {
  const a = [...touchedAt(SEED, base - 2).addresses][0]!;
  return [
    '/block/max',
    '/block/list?page=1&page_size=20',
    `/block/detail?h=${base - 5}`,
    '/tx/list?page=1&page_size=20',
    `/tx/list?block_height=${base - 5}&page=1&page_size=20`,
    '/tx/list/pending?page=1&page_size=20',
    `/tx/detail?hash=${txHash(SEED, base - 5, 0)}`,
    `/tx/listByAddress?address=${a}&page=1&page_size=20`,
    `/tx/nrc20?address=${a}`,
    `/address/info?address=${a}`,
    '/chain/summary',
    '/holders?page=1&page_size=20',
    '/contracts?page=1&page_size=20',
    '/token/list',
    '/token/detail?token=ATP',
    '/token/holders?token=ATP&page=1&page_size=20',
    '/token/tx/list?token=ATP&page=1&page_size=20',
    '/tx/count/today',
    '/tx/count/history?days=15',
    '/address/count/history?days=30',
    '/nax/summary',
    '/nax/history?page=1&page_size=20',
    `/nax/profits?address=${a}&page=1&page_size=20`,
  ];
}

/**
 * The upstream runs from START, the proxy reads 30 blocks, then the upstream process is stopped and started again
 * from `restart` on the same port. Within two blocks every endpoint is a HIT on its second request.
 */
async function restartFrom(restart: number, pendingPollMs = 0): Promise<void> {
  sim = await startSimulator({ seed: SEED, blockIntervalMs: 0, startHeight: START });
  const port = Number(new URL(sim.url).port);
  proxy = await startReplica([sim.url], {
    upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
    invalidation: { ...PRECISE, pendingPollMs },
  });
  const p = proxy;
  sim.chain.advance(UP);
  await covered(p, START + UP);
  for (const path of paths()) expect((await get(p.url, path)).status, path).toBe(200);

  // The upstream starts again from an older height: every probe reports it, and the proxy follows it down.
  await sim.close();
  sim = await startSimulator({ port, seed: SEED, blockIntervalMs: 0, startHeight: restart });
  const again = sim;
  await untilHead(p.tracker, (h) => h === restart, 'the rebase to the older height');
  again.chain.advance(2);
  await covered(p, restart + 2);
  await untilHead(p.tracker, (h) => h === restart + 2, 'the second block after the rebase');

  const missing: string[] = [];
  for (const path of paths(restart)) {
    await get(p.url, path);
    const r = await get(p.url, path);
    if (r.cache !== 'HIT') missing.push(`${path}: ${r.cache ?? '-'}`);
  }
  expect(missing).toEqual([]);
  const status = await invalidationStatus(p.url);
  expect(Number(status['judgedFrom'])).toBeLessThanOrEqual(restart + 2);
}

describe('a head that went backwards', () => {
  it('every endpoint hits again within two blocks of the rebase', () => restartFrom(START));

  it('to below the first block the proxy read (the pool polled): every endpoint hits again within two blocks', () =>
    restartFrom(START - 66, 1000));
});
