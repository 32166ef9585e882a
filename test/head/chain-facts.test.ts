/**
 * Explicit chain feedback: a fetch returns the facts its answer showed (head,
 * final height) and changes nothing itself; the tracker applies them in one
 * place. Head answers pass one guard: one refused at the upstream boundary
 * (implausible, or behind what was served) leaves no trace in the tracker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import { HeadGuard } from '../../src/pipeline/head-guard.js';
import { ChainTracker } from '../../src/chain/tracker.js';
import { FetchStage } from '../../src/pipeline/fetch-stage.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson } from '../helpers/fake-upstream.js';
import { upstreamConfig } from '../helpers/upstream-kit.js';
import { fixture, startChainFake, type ChainFake } from '../helpers/chain-fake.js';

const HEAD = 4_842_503;
const limits = { maxPageSize: 100, maxDays: 365 };
const catalogue = buildCatalogue();
const req = (name: 'block/list' | 'block/max', query = '') => canonicalize(catalogue.get(name), query, limits);

let fake: ChainFake | undefined;
let pool: ManagedUpstreamPool | undefined;
afterEach(async () => {
  await pool?.close();
  await fake?.close();
  pool = fake = undefined;
});

async function setup(): Promise<{ fake: ChainFake; tracker: ChainTracker; guard: HeadGuard; fetcher: FetchStage }> {
  fake = await startChainFake(HEAD);
  const tracker = new ChainTracker();
  pool = createUpstreamPool({ urls: [fake.url], config: upstreamConfig({ maxAttempts: 1 }), tracker });
  await pool.probeNow();
  expect(tracker.bestHead()).toBe(HEAD);
  const guard = new HeadGuard(tracker, Date.now);
  return {
    fake,
    tracker,
    guard,
    fetcher: new FetchStage({
      pool,
      chain: tracker,
      headGuard: guard,
      publicBaseUrl: 'http://p',
      clock: Date.now,
      quorum: null,
    }),
  };
}

describe('chain facts', () => {
  it(
    'a final height shown by a block list is returned, ' + 'not applied, by the fetch; applying it moves the tracker',
    async () => {
      const { fake, tracker, fetcher } = await setup();
      fake.on('block/list', (_q, res) =>
        sendJson(res, 200, fixture('block/list').replaceAll('"is_finality":false', '"is_finality":true')),
      );
      const f = await fetcher.fetch(req('block/list'));
      expect(f.facts).toEqual({ head: 4_842_132, final: 4_842_132, source: 'u0', shown: true });
      expect(tracker.finalHeight()).toBeNull();
      tracker.apply(f.facts);
      expect(tracker.finalHeight()).toBe(4_842_132);
    },
  );

  it('a block/max answer returns its head as a fact', async () => {
    const { fake, tracker, fetcher } = await setup();
    fake.head.value = HEAD + 1;
    const f = await fetcher.fetch(req('block/max'));
    expect(f.facts).toEqual({ head: HEAD + 1, final: null, source: 'u0', shown: false });
    expect(tracker.bestHead()).toBe(HEAD);
    tracker.apply(f.facts);
    expect(tracker.bestHead()).toBe(HEAD + 1);
  });

  it('an implausible head is refused at the boundary and leaves no claim behind', async () => {
    const { fake, tracker, fetcher } = await setup();
    fake.head.value = HEAD + 100_000;
    await expect(fetcher.fetch(req('block/max'))).rejects.toMatchObject({
      detail: expect.stringContaining('implausibly far ahead') as unknown,
    });
    expect(tracker.bestHead()).toBe(HEAD);
    // One report of that height is a first claim, not a confirmation of an earlier one.
    expect(tracker.observeHead(HEAD + 100_000, 'u0')).toBe(false);
    expect(tracker.bestHead()).toBe(HEAD);
  });

  it(
    'a head behind the highest served is refused; ' + 'the guard serves the highest in place of a lower entry',
    async () => {
      const { fake, fetcher, guard } = await setup();
      const served = (await fetcher.fetch(req('block/max'))).entry;
      expect(guard.check(served)).toBe(served);
      fake.head.value = HEAD - 5;
      await expect(fetcher.fetch(req('block/max'))).rejects.toMatchObject({
        detail: expect.stringContaining(`behind ${HEAD}`) as unknown,
      });
      fake.head.value = HEAD + 2;
      const higher = (await fetcher.fetch(req('block/max'))).entry;
      expect(guard.check(higher)).toBe(higher);
      expect(guard.check(served)).toBe(higher);
    },
  );
});
