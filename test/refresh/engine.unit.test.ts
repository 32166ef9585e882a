/**
 * The refresh engine: both triggers read one board; rounds run only where the
 * fleet's background work runs (the leader, or a replica acting alone: a
 * follower finds the leader's refreshed entries in the Redis tier); each round
 * hands what it stored to `onRefreshed`.
 */
import { describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import type { CanonicalRequest } from '../../src/catalogue/types.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { tagOfAddress } from '../../src/invalidation/tags.js';
import { HotBoard } from '../../src/refresh/board.js';
import { RefreshEngine, type RefreshDeps } from '../../src/refresh/engine.js';
import { blockNaming, entryOf, req } from './kit.js';

const ADDRESS = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';
const info = req('address/info', `address=${ADDRESS}`);
const LIST = req('tx/list', 'page_size=10');
const MAX = req('block/max');

interface Rig {
  engine: RefreshEngine;
  board: HotBoard;
  renew: ReturnType<typeof vi.fn<(r: CanonicalRequest) => Promise<CacheEntry | null>>>;
  counts: { head: string[]; touched: string[] };
  rounds: CacheEntry[][];
  acting: { now: boolean };
}

function rig(over: Partial<RefreshDeps> = {}): Rig {
  const board = new HotBoard();
  const acting = { now: true };
  const counts = { head: [] as string[], touched: [] as string[] };
  const rounds: CacheEntry[][] = [];
  const renew = vi.fn((r: CanonicalRequest): Promise<CacheEntry | null> => Promise.resolve(entryOf(r)));
  const engine = new RefreshEngine({
    board,
    renew,
    current: () => false,
    acting: () => acting.now,
    maxKeys: 8,
    counted: { head: (o) => counts.head.push(o), touched: (o) => counts.touched.push(o) },
    onRefreshed: (entries) => rounds.push(entries),
    logger: pino({ level: 'silent' }),
    ...over,
  });
  return { engine, board, renew, counts, rounds, acting };
}

/** A client lookup that found the address's entry invalidated. */
function invalidatedLookup(board: HotBoard): void {
  board.seen(info);
  board.invalidated(entryOf(info, [tagOfAddress(ADDRESS)]));
}

const renewed = (r: Rig) => r.renew.mock.calls.map(([q]) => q.key);

describe('the touched trigger in a fleet', () => {
  it('refreshes an invalidated hot entry when a block names it, while this replica acts for the fleet', async () => {
    const r = rig();
    invalidatedLookup(r.board);
    await r.engine.block(blockNaming(10, [ADDRESS]));
    expect(r.renew).toHaveBeenCalledTimes(1);
    expect(renewed(r)).toEqual([info.key]);
    expect(r.counts.touched).toEqual(['ok']);
  });

  it('a follower does not', async () => {
    const r = rig();
    r.acting.now = false;
    invalidatedLookup(r.board);
    await r.engine.block(blockNaming(10, [ADDRESS]));
    expect(r.renew).not.toHaveBeenCalled();
  });

  it('a block that is not complete, or names none of its tags, refreshes nothing', async () => {
    const r = rig();
    invalidatedLookup(r.board);
    await r.engine.block({ ...blockNaming(10, [ADDRESS]), complete: false });
    await r.engine.block(blockNaming(11, ['n1JmhE82GNjdZPNZr6dgUuSfzy2WRwmZ16n']));
    expect(r.renew).not.toHaveBeenCalled();
  });
});

describe('the head trigger', () => {
  it('refreshes the hottest head pages, then the targets, while this replica acts for the fleet', async () => {
    const r = rig({ maxKeys: 1 });
    const order: string[] = [];
    r.renew.mockImplementation((q) => {
      order.push(q.key);
      return Promise.resolve(entryOf(q));
    });
    r.engine.addTarget({ name: 'pages/home', refresh: () => Promise.resolve(order.push('pages/home')) });
    for (let i = 0; i < 3; i++) r.board.seen(LIST);
    r.board.seen(MAX);
    await r.engine.head(100);
    expect(order).toEqual([LIST.key, 'pages/home']);
    expect(r.counts.head).toEqual(['ok', 'ok']);
  });

  it('a follower refreshes nothing on a new head, targets included', async () => {
    const r = rig();
    const target = vi.fn(() => Promise.resolve());
    r.engine.addTarget({ name: 'pages/home', refresh: target });
    r.acting.now = false;
    r.board.seen(LIST);
    await r.engine.head(100);
    expect(r.renew).not.toHaveBeenCalled();
    expect(target).not.toHaveBeenCalled();
  });

  it('skips keys whose entry is already current at the new head', async () => {
    const r = rig({ current: (q) => q.key === MAX.key });
    r.board.seen(LIST);
    r.board.seen(MAX);
    await r.engine.head(100);
    expect(renewed(r)).toEqual([LIST.key]);
  });

  it('one round per head: heads arriving while a round runs are coalesced into one more round', async () => {
    const r = rig();
    let release: () => void = () => {};
    let called: () => void = () => {};
    const renewing = new Promise<void>((resolve) => (called = resolve));
    r.renew.mockImplementationOnce((q) => {
      called();
      return new Promise((resolve) => (release = () => resolve(entryOf(q))));
    });
    r.board.seen(LIST);
    const first = r.engine.head(100);
    await renewing;
    expect(r.renew).toHaveBeenCalledTimes(1);
    const later = [r.engine.head(101), r.engine.head(102), r.engine.head(101)];
    r.board.seen(LIST);
    release();
    await Promise.all([first, ...later]);
    expect(r.renew).toHaveBeenCalledTimes(2);
    // A head already covered gets no round of its own.
    await r.engine.head(102);
    expect(r.renew).toHaveBeenCalledTimes(2);
  });

  it('after a rebase the real head gets a round again', async () => {
    const r = rig();
    r.board.seen(LIST);
    await r.engine.head(100);
    r.board.seen(LIST);
    r.engine.rebase(98);
    await r.engine.head(98);
    expect(r.renew).toHaveBeenCalledTimes(2);
  });

  it('a failed refresh is counted and logged; the others go on', async () => {
    const r = rig();
    r.renew.mockImplementation((q) =>
      q.key === MAX.key ? Promise.reject(new Error('upstream down')) : Promise.resolve(entryOf(q)),
    );
    r.board.seen(LIST);
    r.board.seen(MAX);
    await r.engine.head(100);
    expect(r.counts.head.sort()).toEqual(['error', 'ok']);
    expect(r.rounds.map((es) => es.map((e) => e.key))).toEqual([[LIST.key]]);
  });

  it('a round that throws does not stop the rounds after it', async () => {
    let broken = true;
    const r = rig({
      current: () => {
        if (broken) throw new Error('broken');
        return false;
      },
    });
    r.board.seen(LIST);
    await r.engine.head(100);
    broken = false;
    r.board.seen(LIST);
    await r.engine.head(101);
    expect(renewed(r)).toEqual([LIST.key]);
  });

  it(
    'a follower ages its scores with every head: ' + 'when it takes over, it refreshes what clients ask for now',
    async () => {
      const r = rig({ maxKeys: 1 });
      r.acting.now = false;
      // Long ago the head was asked for a lot; lately only the list.
      for (let i = 0; i < 50; i++) r.board.seen(MAX);
      for (let h = 100; h < 110; h++) {
        r.board.seen(LIST);
        r.board.seen(LIST);
        await r.engine.head(h);
      }
      r.acting.now = true;
      await r.engine.head(110);
      expect(renewed(r)).toEqual([LIST.key]);
    },
  );
});

describe('onRefreshed', () => {
  it('receives, once per round, the entries the round stored, and not what was not kept', async () => {
    const r = rig();
    const kept = new Map<string, CacheEntry>();
    r.renew.mockImplementation((q) => {
      if (q.key === MAX.key) return Promise.resolve(null); // not cacheable: served, never stored
      const e = entryOf(q);
      kept.set(q.key, e);
      return Promise.resolve(e);
    });
    r.board.seen(LIST);
    r.board.seen(req('tx/list/pending'));
    r.board.seen(MAX);
    await r.engine.head(100);
    expect(r.rounds).toHaveLength(1);
    expect(r.rounds[0]!.map((e) => e.key).sort()).toEqual([...kept.keys()].sort());
    expect(r.rounds[0]!.every((e) => kept.get(e.key) === e)).toBe(true);

    invalidatedLookup(r.board);
    await r.engine.block(blockNaming(101, [ADDRESS]));
    expect(r.rounds).toHaveLength(2);
    expect(r.rounds[1]!.map((e) => e.key)).toEqual([info.key]);
  });

  it('is not called by a round that stored nothing, nor on a follower', async () => {
    const r = rig();
    await r.engine.head(100);
    r.acting.now = false;
    r.board.seen(LIST);
    await r.engine.head(101);
    expect(r.rounds).toEqual([]);
  });
});
