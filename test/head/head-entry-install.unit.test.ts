/**
 * A follower's head entry from the leader's probe answer: installed only for a
 * head this replica already believes, and only above the head its entry shows
 * (never a block/max above what it believes, never backwards).
 */
import { describe, expect, it } from 'vitest';
import { createEntry } from '../../src/cache/entry.js';
import { MemoryStore } from '../../src/cache/memory-store.js';
import type { CanonicalRequest } from '../../src/catalogue/types.js';
import type { ChainView } from '../../src/chain/types.js';
import { HeadEntry } from '../../src/pipeline/head-entry.js';
import type { FetchStage } from '../../src/pipeline/fetch-stage.js';
import type { UpstreamResponse } from '../../src/upstream/types.js';

const T0 = 1_700_000_000_000;
const KEY = 'block/max';

const entryAt = (head: number) =>
  createEntry({
    key: KEY,
    status: 200,
    body: Buffer.from(`{"code":0,"msg":"success","data":{"height":${head}}}`),
    createdAt: T0,
    ttlMs: 1000,
    swrMs: 0,
    sieMs: 0,
    head,
    headDependent: false,
    finalAt: null,
    negative: false,
    stamps: [],
  });

function rig(best: number | null) {
  const memory = new MemoryStore({ maxBytes: 1 << 20, clock: () => T0, purgeIntervalMs: 0 });
  // The fetch stage's adopt as the probe path uses it: the answer as an entry at the head it shows.
  const fetcher = {
    adopt: (_req: unknown, _res: unknown, head: number) => ({ cacheable: true, entry: entryAt(head) }),
  };
  const head = new HeadEntry({
    req: { key: KEY } as CanonicalRequest,
    memory,
    fetcher: fetcher as unknown as FetchStage,
    chain: { bestHead: () => best } as ChainView,
    clock: () => T0,
    keep: () => {
      throw new Error('a follower never writes the shared tier');
    },
  });
  return { memory, head, shown: () => memory.peek(KEY)?.entry.head };
}

const res = {} as UpstreamResponse;

describe("HeadEntry.install (a follower, the leader's answer)", () => {
  it('installs an answer at the believed head, above its own entry', () => {
    const r = rig(101);
    r.memory.put(entryAt(100));
    r.head.install(res, 101);
    expect(r.shown()).toBe(101);
  });

  it('never installs a head above the one it believes, or with no head believed', () => {
    const r = rig(100);
    r.memory.put(entryAt(100));
    r.head.install(res, 101);
    expect(r.shown()).toBe(100);
    const none = rig(null);
    none.head.install(res, 5);
    expect(none.shown()).toBeUndefined();
  });

  it('never goes backwards or replaces an entry at the same head', () => {
    const r = rig(105);
    r.memory.put(entryAt(104));
    r.head.install(res, 103);
    expect(r.shown()).toBe(104);
    const same = r.memory.peek(KEY)!.entry;
    r.head.install(res, 104);
    expect(r.memory.peek(KEY)!.entry).toBe(same);
  });
});
