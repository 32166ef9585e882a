import { describe, expect, it } from 'vitest';
import { nodeLineWarning, satisfies } from '../../src/startup/node-line.js';

describe('supported Node.js lines (package.json engines)', () => {
  it.each([
    ['v22.13.0', true],
    ['v22.20.1', true],
    ['v24.0.0', true],
    ['v25.1.0', true],
    ['v22.12.9', false],
    ['v20.20.2', false],
    ['v23.5.0', false],
    ['v18.0.0', false],
  ])('%s satisfies ^22.13.0 || >=24: %s', (version, ok) => {
    expect(satisfies(version, '^22.13.0 || >=24')).toBe(ok);
    expect(nodeLineWarning(version) === null).toBe(ok);
  });

  it('the warning names the version and the supported lines', () => {
    expect(nodeLineWarning('v20.20.2')).toBe(
      'warning: Node.js v20.20.2 is not a supported line (package.json engines: ^22.13.0 || >=24); ' +
        'it may run, but it is not tested: install a supported Node.js',
    );
  });
});
