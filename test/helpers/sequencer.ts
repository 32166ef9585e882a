/**
 * The order test files start in. With durations from an earlier run
 * (vitest's results cache), longest first, as vitest does. Without them (a
 * fresh clone, as in CI) vitest would take the largest files first; here the
 * files listed in test/long-files.txt (the longest of a recorded run) go
 * first, in its order, then the rest largest first, so the run does not end
 * waiting on a long file started last. The list only orders: a file missing
 * from it still runs.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Paths (from the root) of the long files, longest first. */
export function longFiles(root: string): string[] {
  return readFileSync(join(root, 'test', 'long-files.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification): string => `${f.project.name}:${relative(root, f.moduleId)}`;
    if (files.every((f) => this.ctx.cache.getFileTestResults(key(f)) !== undefined)) return super.sort(files);
    const rank = new Map(longFiles(root).map((p, i) => [p, i]));
    const order = (f: TestSpecification): number => rank.get(relative(root, f.moduleId)) ?? rank.size;
    const size = new Map(files.map((f) => [f, statSync(f.moduleId).size]));
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        order(a) - order(b) ||
        size.get(b)! - size.get(a)!,
    );
  }
}
