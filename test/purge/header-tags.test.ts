/**
 * One tag vocabulary: every tag an answer shows in `Cache-Tag` (and
 * `Surrogate-Key`) with CACHE_TAG_HEADERS=true is accepted by
 * `/purge?tag=` and purges exactly the answers that showed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { TAG_KINDS } from '../../src/purge/tag-vocabulary.js';
import { fakeClock } from '../helpers/clock.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { purge, type PurgeData } from './kit.js';

const BLOCK = 4_841_000;

describe('every Cache-Tag is a purge tag', () => {
  let sim: SimulatorHandle;
  let r: Replica;
  const clock = fakeClock(Date.now());
  const paths: string[] = [];
  /** Tag → the paths whose answer showed it. */
  const carriers = new Map<string, string[]>();
  const fetchOnce = async (path: string) => {
    clock.advance(1);
    return get(r.url, path);
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
    r = await startReplica([sim.url], { cacheTagHeaders: true }, clock.now);
    const tx = (
      dataOf((await get(sim.url, `/tx/list?block_height=${BLOCK}&page_size=1`)).text)['list'] as Array<
        Record<string, string>
      >
    )[0]!;
    const address = tx['address_from']!;
    const hash = dataOf((await get(sim.url, `/block/detail?h=${BLOCK - 1}`)).text)['block_hash'] as string;
    paths.push(
      '/block/max',
      '/block/list',
      `/block/detail?h=${BLOCK}`,
      // By hash: its finality tag names the hash it was asked by.
      `/block/detail?h=${hash}`,
      `/tx/list?block_height=${BLOCK}`,
      `/tx/detail?hash=${tx['tx_hash']!}`,
      `/address/info?address=${address}`,
      `/tx/listByAddress?address=${address}`,
      '/token/detail?token=NAX',
      '/token/list',
      '/contracts',
      '/tx/list/pending',
      '/tx/count/history',
      '/tx/count/today',
      '/nax/history',
      '/nax/summary',
      `/nax/profits?address=${address}`,
    );
    for (const p of paths) {
      const g = await fetchOnce(p);
      const header = g.headers['cache-tag'];
      expect(g.headers['surrogate-key'], p).toBe(header?.replaceAll(',', ' '));
      for (const tag of header?.split(',') ?? []) carriers.set(tag, [...(carriers.get(tag) ?? []), p]);
    }
  });
  afterAll(async () => {
    await r?.close();
    await sim?.close();
  });

  it('the answers show a tag of every kind of the vocabulary but its other spelling (height)', () => {
    const kinds = new Set([...carriers.keys()].map((t) => t.split(':')[0]!));
    for (const k of ['head', 'address', 'contract', 'token', 'finality', 'pending', 'day', 'nax-stage', 'stage-end'])
      expect(kinds).toContain(k);
    for (const k of kinds) expect(Object.keys(TAG_KINDS)).toContain(k);
  });

  it('each tag purges the answers that showed it, and only those', async () => {
    expect(carriers.size).toBeGreaterThan(8);
    for (const [tag, mine] of carriers) {
      for (const p of paths) await fetchOnce(p);
      for (const p of paths) expect((await fetchOnce(p)).cache, `${p} before ${tag}`).toBe('HIT');
      clock.advance(1);
      const res = await purge(r.url, `tag=${encodeURIComponent(tag)}`);
      clock.advance(1);
      expect(res.status, tag).toBe(200);
      const data = res.body.data as PurgeData;
      expect(data, tag).toMatchObject({ kind: 'tag', target: tag });
      expect(data.purged, tag).toBe(mine.length);
      for (const p of paths)
        expect((await fetchOnce(p)).cache, `${p} after ${tag}`).toBe(mine.includes(p) ? 'MISS' : 'HIT');
    }
  });
});
