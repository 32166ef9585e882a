/**
 * Global answers kept by what really changes them, the simulator as the truth:
 * the contract and token lists until a block deploys a contract, the NAX
 * summary until the head reaches the stage's end height, the daily series
 * until the first block of a new day; the holders ranking still on every block.
 */
import { describe, expect, it } from 'vitest';
import { deployedAt } from '../../src/sim/records/layout.js';
import { get, type Replica } from '../helpers/replica.js';
import { content, covered, preciseRig, truth } from './kit.js';

const rig = preciseRig();

/** The first height above `from` whose slot deploys a contract. */
function nextDeploy(from: number): number {
  let h = from + 1;
  while (deployedAt(h) < 0) h++;
  return h;
}

type Sim = { url: string; chain: { advance(n: number): void; head(): number }; stats(): Record<string, number> };
const asked = (sim: Sim, path: string): number => sim.stats()[path.slice(1).split('?')[0]!] ?? 0;

/**
 * HIT with the truth's content across block `quiet` (the upstream not asked
 * for it); after block `changing`,
 * fetched again (by the client, or by the block reader's own read of it) with the truth's content.
 */
async function keptUntil(
  sim: Sim,
  proxy: Replica,
  paths: readonly string[],
  quiet: number,
  changing: number,
): Promise<void> {
  const url = proxy.url;
  for (const p of paths) {
    await get(url, p);
    expect((await get(url, p)).cache, p).toBe('HIT');
  }
  // Upstream counts are read before asking the truth (the same simulator).
  const kept = paths.map((p) => asked(sim, p));
  sim.chain.advance(quiet - sim.chain.head());
  await covered(proxy, quiet);
  const across = await Promise.all(paths.map((p) => get(url, p)));
  for (const [i, p] of paths.entries()) {
    expect(across[i]!.cache, `${p} across block ${quiet}`).toBe('HIT');
    // Not asked again by anyone, the block reader included.
    expect(asked(sim, p), p).toBe(kept[i]);
  }
  for (const [i, p] of paths.entries()) expect(content(across[i]!.text), p).toBe(await truth(sim.url, p));

  const before = paths.map((p) => asked(sim, p));
  sim.chain.advance(changing - sim.chain.head());
  await covered(proxy, changing);
  const after = await Promise.all(paths.map((p) => get(url, p)));
  for (const [i, p] of paths.entries())
    expect(asked(sim, p), `${p} after block ${changing}`).toBeGreaterThan(before[i]!);
  for (const [i, p] of paths.entries()) expect(content(after[i]!.text), p).toBe(await truth(sim.url, p));
}

describe('global lists kept by what changes them', () => {
  it(
    'contracts and token/list stay fresh across blocks with transfers and calls, ' +
      'and are refetched after a deployment',
    async () => {
      const deploy = nextDeploy(4_842_000);
      const { sim, proxy } = await rig.start({}, { startHeight: deploy - 5 });
      await covered(proxy, deploy - 5);
      const quiet = deploy - 4; // carries a token transfer (height mod 8 = 5), deploys nothing
      expect(deployedAt(quiet)).toBeLessThan(0);
      const before = await truth(sim.url, '/contracts?page=1&page_size=5');
      await keptUntil(
        sim,
        proxy,
        ['/contracts?page=1&page_size=5', '/contracts?page=2&page_size=5', '/token/list'],
        quiet,
        deploy,
      );
      expect(await truth(sim.url, '/contracts?page=1&page_size=5')).not.toBe(before); // the deployment is listed
    },
  );

  it('nax/summary stays fresh until the head reaches its end_height, then is refetched', async () => {
    const end = 4_848_000; // a stage boundary (6000 blocks a stage)
    const { sim, proxy } = await rig.start({}, { startHeight: end - 3 });
    await covered(proxy, end - 3);
    const p = '/nax/summary';
    const before = await truth(sim.url, p);
    expect(JSON.parse(before)).toMatchObject({ end_height: end });
    await keptUntil(sim, proxy, [p], end - 1, end);
    expect(await truth(sim.url, p)).not.toBe(before);
  });

  it(
    'the daily series stay fresh within a day (chain time) ' +
      'and are refetched after its first block of the next day',
    async () => {
      // The start head is timed 45 s (three 15 s blocks) before the last UTC midnight.
      const midnight = Math.floor(Date.now() / 86_400_000) * 86_400_000;
      const { sim, proxy } = await rig.start({}, { startTime: midnight - 45_000 });
      const h0 = sim.chain.head();
      await covered(proxy, h0);
      const paths = ['/tx/count/history?days=3', '/address/count/history?days=4'];
      const before = await Promise.all(paths.map((p) => truth(sim.url, p)));
      await keptUntil(sim, proxy, paths, h0 + 2, h0 + 3);
      for (const [i, p] of paths.entries()) expect(await truth(sim.url, p), p).not.toBe(before[i]);
    },
  );

  it(
    'holders still follows the head rule (a ranking by balance, ' + 'with counts the touched sets cannot show)',
    async () => {
      const { sim, proxy } = await rig.start();
      const h0 = sim.chain.head();
      await covered(proxy, h0);
      const p = '/holders?page=1&page_size=20';
      await get(proxy.url, p);
      expect((await get(proxy.url, p)).cache).toBe('HIT');
      sim.chain.advance(1);
      await covered(proxy, h0 + 1);
      const r = await get(proxy.url, p);
      expect(r.cache).toBe('MISS');
      expect(content(r.text)).toBe(await truth(sim.url, p));
    },
  );
});
