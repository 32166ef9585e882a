/**
 * The Node.js lines the package supports are its package.json `engines.node`
 * (`^22.13.0 || >=24`): start-up warns on any other line, without refusing
 * to run. Only the two range forms that field uses are understood: `^x.y.z`
 * and `>=x[.y[.z]]`, joined by `||`.
 */
import { readFileSync } from 'node:fs';

const ENGINES: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
).engines.node;

type Triple = [number, number, number];

const triple = (v: string): Triple => {
  const [a = 0, b = 0, c = 0] = v.replace(/^v/, '').split('.').map(Number);
  return [a, b, c];
};

const atLeast = (v: Triple, min: Triple): boolean => {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i]! > min[i]!;
  return true;
};

/** Whether `version` (`v22.14.0`) satisfies `range`. */
export function satisfies(version: string, range: string): boolean {
  const v = triple(version);
  return range.split('||').some((part) => {
    const p = part.trim();
    if (p.startsWith('^')) {
      const min = triple(p.slice(1));
      return v[0] === min[0] && atLeast(v, min);
    }
    if (p.startsWith('>=')) return atLeast(v, triple(p.slice(2)));
    return false;
  });
}

/** The warning for this Node.js line, or null when it is supported. */
export function nodeLineWarning(version: string = process.version): string | null {
  if (satisfies(version, ENGINES)) return null;
  return (
    `warning: Node.js ${version} is not a supported line (package.json engines: ${ENGINES}); ` +
    'it may run, but it is not tested: install a supported Node.js'
  );
}
