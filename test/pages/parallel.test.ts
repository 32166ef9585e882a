/**
 * Scheduling: independent parts are requested together (every upstream
 * request arrives before the first one is answered; cold latency close to the
 * slowest part, far below the sum), and a dependent part is requested only
 * once what it derives from has been answered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockHash } from '../../src/sim/ids.js';
import { get, metaOf, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv;
beforeEach(async () => {
  env = await startPagesEnv();
});
afterEach(async () => {
  await env.close();
});

const seenFor = (endpoint: string) => {
  const s = env.seen.find((x) => x.path === endpoint);
  if (s === undefined) throw new Error(`no upstream request for ${endpoint}`);
  return s;
};

describe('part scheduling', () => {
  it('home: the eight parts are fetched in parallel', async () => {
    const HOME = [
      'block/max',
      'block/list',
      'tx/list',
      'tx/list/pending',
      'tx/count/today',
      'tx/count/history',
      'chain/summary',
      'nax/summary',
    ];
    HOME.forEach((e, i) => env.faults.set(e, { latencyMs: i === 1 ? 600 : 250 }));
    const t0 = performance.now();
    const page = await get(env.base, '/pages/home');
    const elapsed = performance.now() - t0;
    expect(page.status).toBe(200);
    expect(env.seen.map((s) => s.path).sort()).toEqual([...HOME].sort());
    const firstAnswer = Math.min(...env.seen.map((s) => s.answered!));
    for (const s of env.seen) expect(s.arrived, s.path).toBeLessThan(firstAnswer);
    // The slowest part is 600 ms, the sum 2350 ms; generous tolerance for a loaded machine.
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(1700);
  });

  it('block by hash: the transactions are requested after the block answered (they need its height)', async () => {
    env.faults.set('block/detail', { latencyMs: 200 });
    const h = env.sim.chain.head() - 50;
    const page = await get(env.base, `/pages/block?h=${blockHash(1, h)}`);
    expect(page.status).toBe(200);
    expect(metaOf(page).parts['txs']!.request).toBe(`tx/list?block_height=${h}&page=1&page_size=10`);
    expect(seenFor('tx/list').arrived).toBeGreaterThanOrEqual(seenFor('block/detail').answered!);
  });

  it('block by height: the transactions need nothing from the block and run beside it', async () => {
    env.faults.set('block/detail', { latencyMs: 300 });
    env.faults.set('tx/list', { latencyMs: 300 });
    const h = env.sim.chain.head() - 50;
    const page = await get(env.base, `/pages/block?h=${h}`);
    expect(page.status).toBe(200);
    expect(seenFor('tx/list').arrived).toBeLessThan(seenFor('block/detail').answered!);
  });

  it('token by contract: the token detail waits for the list that names it', async () => {
    env.faults.set('token/tx/list', { latencyMs: 150 });
    const page = await get(env.base, '/pages/token?contract=n1etmdwczuAUCnMMvpGasfi8kwUbb2ddvRJ');
    expect(page.status).toBe(200);
    expect(metaOf(page).parts['detail']!.request).toBe('token/detail?token=NAX');
    expect(seenFor('token/detail').arrived).toBeGreaterThanOrEqual(seenFor('token/tx/list').answered!);
    // The holders list needs only the page's own parameter.
    expect(seenFor('token/holders').arrived).toBeLessThan(seenFor('token/tx/list').answered!);
  });
});
