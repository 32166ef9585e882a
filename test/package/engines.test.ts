/**
 * The supported Node.js lines are what the dependencies need: the first
 * version of each line package.json's `engines` admits satisfies the `engines`
 * of every package in package-lock.json (so `npm ci` warns about none), the
 * line before the oldest is refused, and CI (.ci/run) runs the suite on
 * exactly those lines. The README names them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');

type Version = [number, number, number];

function version(text: string): Version {
  const [a = 0, b = 0, c = 0] = text
    .replace(/^v/, '')
    .split('.')
    .map((x) => (x === 'x' || x === '*' ? 0 : Number(x)));
  return [a, b, c];
}

const cmp = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** One comparator of an npm range as the lock holds them: >=X, ^X, X (a major, or X.* ), X.Y.Z. */
function satisfiesOne(v: Version, part: string): boolean {
  const p = part.replace(/\s+/g, '');
  if (p.startsWith('>=')) return cmp(v, version(p.slice(2))) >= 0;
  if (p.startsWith('^')) {
    const w = version(p.slice(1));
    return v[0] === w[0] && cmp(v, w) >= 0;
  }
  const fields = p.split('.').filter((x) => x !== '*' && x !== 'x');
  if (fields.length < 3) return fields.every((f, i) => v[i] === Number(f));
  return cmp(v, version(p)) === 0;
}

function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|\^)\s+/g, '$1')
      .split(/\s+/)
      .every((part) => satisfiesOne(v, part)),
  );
}

const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: string }; optional?: boolean; os?: string[]; cpu?: string[] }>;
};
/** The first version of each supported line: the lower bound of each alternative of `engines`. */
const floors = pkg.engines.node.split('||').map((alt) => version(alt.trim().replace(/^(>=|\^)/, '')));

describe('Node.js lines', () => {
  it('engines admits 22 (from 22.13) and 24, not 20', () => {
    expect(floors.map((f) => f.join('.'))).toEqual(['22.13.0', '24.0.0']);
    expect(satisfies([20, 20, 0], pkg.engines.node)).toBe(false);
    expect(satisfies([22, 12, 0], pkg.engines.node)).toBe(false);
    expect(satisfies([22, 23, 3], pkg.engines.node)).toBe(true);
    expect(satisfies([24, 21, 0], pkg.engines.node)).toBe(true);
  });

  it('every package in the lockfile accepts the first version of each supported line', () => {
    const refused: string[] = [];
    let checked = 0;
    for (const [path, p] of Object.entries(lock.packages)) {
      const range = p.engines?.node;
      if (path === '' || range === undefined) continue;
      // Platform packages installed only elsewhere (a wasm or macOS binary) never run here.
      if (
        p.optional === true &&
        (p.cpu?.includes('wasm32') === true || (p.os !== undefined && !p.os.includes('linux')))
      )
        continue;
      checked++;
      for (const f of floors)
        if (!satisfies(f, range))
          refused.push(`${path.replace(/^.*node_modules\//, '')} (${range}) refuses ${f.join('.')}`);
    }
    expect(checked).toBeGreaterThan(50);
    expect(refused).toEqual([]);
  });

  it('a range that needs a newer line is caught (cookie 2 needs 22: Node.js 20 is refused)', () => {
    expect(satisfies([20, 18, 0], lock.packages['node_modules/cookie']!.engines!.node!)).toBe(false);
    expect(satisfies([22, 13, 0], '^20.19.0 || ^22.13.0 || >=23.5.0')).toBe(true);
    expect(satisfies([22, 12, 0], '^20.19.0 || ^22.13.0 || >=23.5.0')).toBe(false);
    expect(satisfies([24, 0, 0], '20 || >=22')).toBe(true);
    expect(satisfies([23, 1, 0], '^20.0.0 || ^22.0.0 || >=24.0.0')).toBe(false);
  });

  it('CI runs the suite on each supported line, and the README names them', () => {
    const lines = /^NODE_LINES=\(([^)]*)\)$/m.exec(read('.ci/run'))?.[1]?.split(/\s+/).map(Number);
    expect(lines).toEqual(floors.map((f) => f[0]));
    expect(read('README.md')).toContain('Node.js **22** (22.13 or later) or **24**');
  });
});
