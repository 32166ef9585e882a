/**
 * The pending pool as a tag: the pending list is kept while the pool does not
 * change (the poll reading it between blocks), and refetched after a block or
 * once the poll sees the pool change without one. Upstream: a forwarder on a
 * real socket in front of two simulators with the same seed; the pool (and
 * transaction details) come from the second, which a test moves one block
 * ahead to change the pool without a block.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockNames, startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, PRECISE, SEED, truth } from './kit.js';

const POLL_MS = 50;
const LIST = '/tx/list/pending';

let chain: SimulatorHandle | undefined;
let pool: SimulatorHandle | undefined;
let upstream: FakeUpstream | undefined;
let proxy: Replica | undefined;
/** A pool entry the forwarder leaves out of the pool from now on (dropped unmined). */
let dropped: string | null = null;
afterEach(async () => {
  dropped = null;
  await proxy?.close();
  await upstream?.close();
  await Promise.all([chain?.close(), pool?.close()]);
  proxy = upstream = chain = pool = undefined;
});

async function start(): Promise<{
  chain: SimulatorHandle;
  pool: SimulatorHandle;
  upstream: FakeUpstream;
  proxy: Replica;
}> {
  const startTime = Date.now();
  [chain, pool] = await Promise.all([
    startSimulator({ seed: SEED, blockIntervalMs: 0, startTime }),
    startSimulator({ seed: SEED, blockIntervalMs: 0, startTime }),
  ]);
  const a = chain;
  const b = pool;
  upstream = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    const from = /^\/tx\/(list\/pending|detail)(\?|$)/.test(url) ? b : a;
    const r = await fetch(from.url + url);
    const body = Buffer.from(await r.arrayBuffer());
    sendJson(res, r.status, dropped !== null && url.startsWith(LIST) ? withoutTx(body, dropped) : body);
  });
  proxy = await startReplica([upstream.url], {
    upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
    invalidation: { ...PRECISE, pendingPollMs: POLL_MS },
  });
  await covered(proxy, a.chain.head());
  // The poll's first reads (its baseline) are behind us.
  await polls(upstream, 3);
  return { chain: a, pool: b, upstream, proxy };
}

function withoutTx(body: Buffer, hash: string): Buffer {
  const env = JSON.parse(body.toString('utf8')) as { data: { list: { tx_hash: string }[] } };
  env.data.list = env.data.list.filter((t) => t.tx_hash !== hash);
  return Buffer.from(JSON.stringify(env));
}

/** Waits until the poll has read the pool `n` more times. */
async function polls(upstream: FakeUpstream, n: number): Promise<void> {
  await upstream.arrived(upstream.count(LIST) + n, LIST, `${n} polls`);
}

describe('the pending pool as a tag', () => {
  it(
    'the pending list stays a hit while the polled pool is unchanged, ' +
      'beyond its TTL, and is refetched after a block',
    async () => {
      const { chain, pool, upstream, proxy } = await start();
      expect((await get(proxy.url, LIST)).cache).toBe('MISS');
      // 1 s TTL under the older rule: 25 polls at 50 ms outlast it.
      await polls(upstream, 25);
      const kept = await get(proxy.url, LIST);
      expect(kept.cache).toBe('HIT');
      expect(content(kept.text)).toBe(await truth(pool.url, LIST));

      const h = chain.chain.head();
      chain.chain.advance(1);
      pool.chain.advance(1);
      await covered(proxy, h + 1);
      const after = await get(proxy.url, LIST);
      expect(content(after.text)).not.toBe(content(kept.text));
      expect(content(after.text)).toBe(await truth(pool.url, LIST));
    },
  );

  it('a pool change the poll sees between blocks stales the pending list', async () => {
    const { pool, upstream, proxy } = await start();
    const first = await get(proxy.url, LIST);
    expect((await get(proxy.url, LIST)).cache).toBe('HIT');
    pool.chain.advance(1); // the pool moves; the chain the proxy follows does not
    await polls(upstream, 2);
    const r = await get(proxy.url, LIST);
    expect(r.cache).toBe('MISS');
    expect(content(r.text)).not.toBe(content(first.text));
    expect(content(r.text)).toBe(await truth(pool.url, LIST));
  });

  it(
    'a transaction dropped from the pool unmined stales ' + 'the lists that showed it pending, with the next block',
    async () => {
      const { chain, pool, upstream, proxy } = await start();
      const next = blockNames(SEED, chain.chain.head() + 1);
      const list = (
        JSON.parse(await (await fetch(pool.url + LIST)).text()) as { data: { list: Record<string, unknown>[] } }
      ).data.list;
      // An entry whose parties the next block does not name.
      const gone = list.find((t) =>
        ['address_from', 'address_to', 'contract_address'].every((k) => typeof t[k] !== 'string' || !next.has(t[k])),
      );
      if (gone === undefined) throw new Error('no pool entry outside the next block');
      const path = `/tx/listByAddress?address=${String(gone['address_from'])}`;
      const first = await get(proxy.url, path);
      expect(first.text).toContain(String(gone['tx_hash']));
      expect((await get(proxy.url, path)).cache).toBe('HIT');
      dropped = String(gone['tx_hash']);
      await polls(upstream, 2);
      const h = chain.chain.head();
      chain.chain.advance(1);
      await covered(proxy, h + 1);
      expect((await get(proxy.url, path)).cache).toBe('MISS');
    },
  );
});
