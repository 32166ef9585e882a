/**
 * The byte bound holds in the heap, not only in the accounting: after a flood
 * of distinct keys (twice what fits), the heap grew by at most 1.5 x
 * CACHE_MAX_BYTES. Measured in a child process with a forced GC.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./memory-bound.child.ts', import.meta.url));
const MAX = 8 * 1024 * 1024;

function flood(kind: 'negative' | 'small'): { entries: number; charged: number; grown: number } {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, String(MAX), kind], {
    encoding: 'utf8',
    timeout: 150_000,
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as { entries: number; charged: number; grown: number };
}

// The flood runs in a child process, slowly on a loaded machine: the deadline is not what is tested.
describe('memory bound under a distinct-key flood', { timeout: 180_000 }, () => {
  it.each(['negative', 'small'] as const)('%s entries: heap growth within 1.5 x the bound', (kind) => {
    const r = flood(kind);
    expect(r.charged).toBeLessThanOrEqual(MAX);
    expect(r.charged).toBeGreaterThan(MAX * 0.9); // the store is full
    expect(r.grown).toBeLessThanOrEqual(1.5 * MAX);
  });
});
