/**
 * House style: no line of TypeScript longer than 120 characters in src/, test/,
 * bench/ or scripts/. Prettier wraps code at that width but leaves strings and
 * comments as written, so this reads every line. The files listed in EXEMPT
 * were still over when the rule came in; a file leaves the list once it is
 * wrapped (the test fails while a listed file has no long line left).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FOLDERS = ['src', 'test', 'bench', 'scripts'];
const MAX = 120;

const EXEMPT: readonly string[] = [
  'src/catalogue/paths.ts',
  'src/fleet/bus.ts',
  'src/fleet/duty.ts',
  'src/fleet/member-metrics.ts',
  'src/fleet/named-lease.ts',
  'src/http/batch-openapi.ts',
  'src/http/batch-route.ts',
  'src/http/deliver.ts',
  'src/http/envelope-writer.ts',
  'src/http/rate-limit.ts',
  'src/invalidation/clock.ts',
  'src/invalidation/earned.ts',
  'src/invalidation/metrics.ts',
  'src/invalidation/read-block.ts',
  'src/invalidation/reader.ts',
  'src/invalidation/rule.ts',
  'src/invalidation/tags.ts',
  'src/invalidation/verify-block.ts',
  'src/page-table/config.ts',
  'src/pages/metrics.ts',
  'src/pages/openapi.ts',
  'src/page-table/plan.ts',
  'src/pipeline/fetch-stage.ts',
  'src/pipeline/head-entry.ts',
  'src/pipeline/head-guard.ts',
  'src/pipeline/refresh-ahead.ts',
  'src/pipeline/resolver.ts',
  'src/stages.ts',
  'test/cache/canonical-key.test.ts',
  'test/cache/memory-store.unit.test.ts',
  'test/cache/policies.test.ts',
  'test/cache/redis-hit.test.ts',
  'test/cache/single-flight.test.ts',
  'test/cache/store-contract.ts',
  'test/fleet/leader.test.ts',
  'test/fleet/members.test.ts',
  'test/fleet/rate-limit-fleet.test.ts',
  'test/fleet/shared-hits.test.ts',
  'test/http/conditional.test.ts',
  'test/http/drain-pending.test.ts',
  'test/http/drain.test.ts',
  'test/http/envelope-writer.test.ts',
  'test/http/version.test.ts',
  'test/http/x-cache.test.ts',
  'test/invalidation/clock.unit.test.ts',
  'test/invalidation/cross-check.test.ts',
  'test/invalidation/fleet.test.ts',
  'test/invalidation/global.test.ts',
  'test/invalidation/head-advance.test.ts',
  'test/invalidation/liar.ts',
  'test/invalidation/pending.test.ts',
  'test/invalidation/pool-unknown.test.ts',
  'test/invalidation/precise.test.ts',
  'test/invalidation/reorg.test.ts',
  'test/invalidation/safety-bound.test.ts',
  'test/refresh/hot-refresh.test.ts',
  'test/refresh/refresh-ahead.test.ts',
  'test/workers/merge-metrics.unit.test.ts',
  'test/workers/workers.test.ts',
];

/** Lines longer than `max` characters (code points), as `line N: M characters`. */
function longLines(text: string, max = MAX): string[] {
  return text.split('\n').flatMap((line, i) => {
    const n = [...line].length;
    return n > max ? [`line ${i + 1}: ${n} characters`] : [];
  });
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('the check itself', () => {
  it('counts characters, not bytes: 120 pass, 121 fail', () => {
    expect(longLines(`${'x'.repeat(120)}\n${'é'.repeat(120)}\n${'→'.repeat(120)}`)).toEqual([]);
    expect(longLines(`short\n${'x'.repeat(121)}\n${'x'.repeat(120)}\n  ${'é'.repeat(119)}`)).toEqual([
      'line 2: 121 characters',
      'line 4: 121 characters',
    ]);
  });
});

describe('every .ts line in src/, test/, bench/ and scripts/', () => {
  const files = FOLDERS.flatMap((f) => tsFiles(join(ROOT, f))).map((p) => relative(ROOT, p).split(sep).join('/'));
  const over = new Map(files.map((f) => [f, longLines(readFileSync(join(ROOT, f), 'utf8'))] as const));

  it('are all read', () => {
    expect(files.length).toBeGreaterThan(400);
    expect(files).toContain('test/architecture/line-length.unit.test.ts');
  });

  it(`is at most ${MAX} characters long, but in the files not wrapped yet`, () => {
    const found = [...over].filter(([f, lines]) => lines.length > 0 && !EXEMPT.includes(f));
    expect(found.map(([f, lines]) => `${f}: ${lines.join(', ')}`)).toEqual([]);
  });

  it('leaves the exemption list once a listed file is wrapped', () => {
    const wrapped = EXEMPT.filter((f) => (over.get(f) ?? []).length === 0);
    expect(wrapped, 'listed files with no long line left (or gone): take them off EXEMPT').toEqual([]);
  });
});
