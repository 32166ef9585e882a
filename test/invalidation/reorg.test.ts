/**
 * A non-final block replaced (a reorg): the upstream first serves block N as
 * an orphan (another hash, without one transfer), then the real block. When
 * the block list shows the new hash, the reader reads N again around the
 * cache: what was fetched about N is stale at once (its record is never a HIT
 * with the old hash), the address only the replacement names is refetched,
 * and both streams replace the old block's events.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockHash, startSimulator, txHash, txNames, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { openStream, type HeadData, type SseClient } from '../stream/sse-client.js';
import { content, covered, invalidationStatus, PRECISE, SEED, truth } from './kit.js';
import { startLiar, type Liar } from './liar.js';

/** Block START + 1 is an NRC20 transfer (height mod 8 = 4) to a first-time holder: an address no other block names. */
const START = 4_842_003;
const N = START + 1;

let sim: SimulatorHandle | undefined;
let liar: Liar | undefined;
let proxy: Replica | undefined;
const streams: SseClient[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await proxy?.close();
  await liar?.close();
  await sim?.close();
  proxy = undefined;
  liar = undefined;
  sim = undefined;
});

describe('a reorg of a non-final block', () => {
  it(
    'stales what was fetched about the old block at once, ' +
      "refetches what only the new one names, and replaces the streams' events",
    async () => {
      sim = await startSimulator({ seed: SEED, blockIntervalMs: 0, startHeight: START });
      const s = sim;
      liar = await startLiar(s.url);
      const transfer = txHash(SEED, N, 0);
      const [sender, holder] = txNames(SEED, N, 0) as [string, string];
      const real = blockHash(SEED, N);
      const orphan = 'ab'.repeat(32);
      liar.orphan({ hash: real, fake: orphan, hide: transfer });
      proxy = await startReplica([liar.url], {
        upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
        invalidation: PRECISE,
      });
      const p = proxy;
      await covered(p, START);
      const heads = await openStream(p.url);
      // The transfer's record names its sender (its recipient is in the transfer's detail only).
      const activity = await openStream(p.url, { path: '/stream/activity', query: `?address=${sender}` });
      streams.push(heads, activity);
      await heads.until(() => heads.events.length > 0, 5000, 'the first head event');

      s.chain.advance(1);
      await covered(p, N);
      await heads.until(() => heads.heights().includes(N), 5000, `the head event of ${N}`);
      const detail = `/block/detail?h=${N}`;
      const list = `/tx/listByAddress?address=${holder}&is_nrc20=true&page=1&page_size=20`;
      const txs = `/tx/list?block_height=${N}&page=1&page_size=20`;
      expect(dataOf((await get(p.url, detail)).text)['block_hash']).toBe(orphan);
      expect(dataOf((await get(p.url, list)).text)['count']).toBe(0);
      await get(p.url, txs);
      for (const path of [detail, list, txs]) expect((await get(p.url, path)).cache, path).toBe('HIT');

      // The chain settles on the real block N, and the next block is made on it.
      const blocks = async (): Promise<number> => Number((await invalidationStatus(p.url))['blocks']);
      const before = await blocks();
      liar.reorg();
      s.chain.advance(1);
      await covered(p, N + 1);
      await waitFor(async () => (await blocks()) >= before + 2, 5000, `block ${N + 1} and block ${N} again published`);

      // Never the old record (a hit of the reader's new reading is fine).
      expect(dataOf((await get(p.url, detail)).text)['block_hash']).toBe(real);
      for (const path of [list, txs]) {
        const r = await get(p.url, path);
        expect(r.cache, path).not.toBe('HIT');
        expect(content(r.text), path).toBe(await truth(s.url, path));
      }
      expect(dataOf((await get(p.url, list)).text)['count']).toBe(1);

      // The head stream: a rebase below N, then N again with the real block.
      await heads.until(
        () => heads.typed('rebase').some((e) => e.id === String(N - 1)),
        5000,
        'the rebase below the replaced block',
      );
      await heads.until(
        () =>
          heads.events.some(
            (e) => e.type === 'message' && (JSON.parse(e.data) as HeadData).block?.['block_hash'] === real,
          ),
        5000,
        'the replaced block',
      );
      // The activity stream: the replacement names the sender.
      await activity.until(
        () => activity.events.some((e) => e.id === String(N)),
        5000,
        'the activity event of the replacement',
      );
      const event = JSON.parse(activity.events.find((e) => e.id === String(N))!.data) as {
        block_hash: string;
        complete: boolean;
        txs: unknown[];
      };
      expect(event).toMatchObject({ block_hash: real, complete: true });
      expect(JSON.stringify(event.txs)).toContain(transfer);
      expect(((await invalidationStatus(p.url))['guarded'] as Record<string, number>)['reorg']).toBe(1);
    },
  );
});
