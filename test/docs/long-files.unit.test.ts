/** The ordering hint of the test run (test/long-files.txt) names only files that exist, once each. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFiles } from '../helpers/sequencer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('test/long-files.txt', () => {
  it('lists integration test files that exist, each once', () => {
    const tests = new Set(
      (readdirSync(join(ROOT, 'test'), { recursive: true }) as string[])
        .map((p) => `test/${p}`)
        .filter((p) => p.endsWith('.test.ts') && !p.endsWith('.unit.test.ts')),
    );
    const listed = longFiles(ROOT);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((p) => !tests.has(p))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });
});
