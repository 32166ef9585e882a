/**
 * Every structure keyed by client input stays within its bound under a flood
 * from many client addresses, and the heap holds: a real proxy in a child
 * process (flood.child.ts, forced collections) is flooded with open-and-close
 * activity streams, head streams past MAX_STREAMS, cold requests from more
 * addresses than RATE_LIMIT_MAX_CLIENTS and pages for new addresses. The
 * heap grows by no more than the documented budgets of that configuration
 * (docs/operations.md, "Memory budgets").
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalRequest, EndpointDef } from '../../src/catalogue/types.js';
import type { Epilogue } from '../../src/http/epilogue.js';
import { FastHits } from '../../src/http/fast-hit.js';
import type { Resolver } from '../../src/pipeline/resolver.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';

const CHILD = fileURLToPath(new URL('./flood.child.ts', import.meta.url));
const MIB = 1024 * 1024;

type Halves = { statuses: Record<string, number>; grown: [number, number] };
interface Report {
  activity: Halves & { watched: number; lingering: number; watchBytes: number; watchMaxBytes: number; clients: number };
  heads: {
    statuses: Record<string, number>;
    again: Record<string, number>;
    open: { streams: number; clients: number };
    afterClose: { streams: number; clients: number };
    grown: [number, number];
  };
  clients: Halves & { buckets: number; missBuckets: number; memoryBytes: number };
  pages: Halves & { buckets: number; missBuckets: number; memoryBytes: number; memoryEntries: number };
  heap: { grown: number; watchBytes: number; memoryBytes: number };
}

/** Once a structure is at its bound, a second flood as large as the first must not grow the heap. */
const PLATEAU = 1 * MIB;

let sim: SimulatorHandle;
let report: Report;
beforeAll(async () => {
  sim = await startSimulator({ seed: 11, blockIntervalMs: 0 });
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', CHILD, sim.url],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  report = JSON.parse(out.trim().split('\n').pop()!) as Report;
}, 150_000);
afterAll(async () => {
  await sim?.close();
});

describe('a flood from many client addresses', () => {
  it(
    'activity watches: each client keeps its share, ' +
      'all of them the watch budget; the second half of the flood grows nothing',
    () => {
      const a = report.activity;
      expect(a.statuses).toEqual({ '200': 400 });
      expect(a.watched).toBe(0);
      expect(a.watchBytes).toBeLessThanOrEqual(2 * MIB);
      expect(a.watchMaxBytes).toBe(2 * MIB);
      // 100 clients x 4 streams x 100 addresses were left: only what the budget holds lingers
      // (less what the last streams needed while open), in the shares of the last clients.
      expect(a.lingering * 800).toBe(a.watchBytes);
      expect(a.watchBytes).toBeGreaterThan(2 * MIB - 20 * 100 * 920);
      expect(a.clients).toBeLessThan(100);
      expect(a.grown[1]).toBeLessThan(PLATEAU);
    },
  );

  it('head streams: MAX_STREAMS open at most, the per-client map empties with them', () => {
    const h = report.heads;
    expect(h.statuses).toEqual({ '200': 100, '503': 200 });
    expect(h.again).toEqual({ '200': 100, '503': 200 });
    expect(h.open).toEqual({ streams: 100, clients: 100 });
    expect(h.afterClose).toEqual({ streams: 0, clients: 0 });
    expect(h.grown[1]).toBeLessThan(PLATEAU);
  });

  it('rate-limit and miss-budget buckets: RATE_LIMIT_MAX_CLIENTS each', () => {
    expect(report.clients.statuses).toEqual({ '200': 1000 });
    expect([report.clients.buckets, report.clients.missBuckets]).toEqual([300, 300]);
    expect([report.pages.buckets, report.pages.missBuckets]).toEqual([300, 300]);
    expect(report.clients.grown[1]).toBeLessThan(PLATEAU);
  });

  it('pages and cold answers: the memory tier within CACHE_MAX_BYTES', () => {
    expect(report.pages.statuses).toEqual({ '200': 300 });
    expect(report.clients.memoryBytes).toBeLessThanOrEqual(MIB);
    expect(report.pages.memoryBytes).toBeLessThanOrEqual(MIB);
    expect(report.pages.memoryBytes).toBeGreaterThan(0.9 * MIB);
    expect(report.pages.grown[1]).toBeLessThan(PLATEAU);
  });

  it(
    'the heap holds: it grew by no more than the budgets (1.5 x the cache, ' +
      'the watch budget, the buckets) and the runtime allowance',
    () => {
      const budgets = 1.5 * MIB + 2 * MIB + 2 * 300 * 230;
      expect(report.heap.grown).toBeLessThanOrEqual(budgets + 3 * MIB);
    },
  );
});

describe('fast-hit URLs', () => {
  it('are remembered up to their bound, the oldest forgotten first', () => {
    const fast = new FastHits({
      resolver: {} as Resolver,
      clock: Date.now,
      epilogue: { endpoints: {} } as Epilogue,
      maxUrls: 10,
    });
    const def = {} as EndpointDef;
    const req = {} as CanonicalRequest;
    for (let i = 0; i < 25; i++) fast.remember(`/address/info?address=${i}`, def, req);
    expect(fast.size).toBe(10);
    // Longer URLs are never remembered.
    fast.remember(`/address/info?address=${'x'.repeat(600)}`, def, req);
    expect(fast.size).toBe(10);
  });
});
