import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/config/cli.js';
import { FIELDS } from '../../src/config/fields.js';
import { GROUPS, groupOf } from '../../src/config/groups.js';
import { helpText } from '../../src/config/help.js';

describe('command-line flags', () => {
  it('--check, alone or with --config; --help and --version win over it', () => {
    expect(parseArgs(['--check'])).toEqual({ kind: 'check' });
    expect(parseArgs(['--check', '--config', 'c.yaml'])).toEqual({ kind: 'check' });
    expect(parseArgs(['--config=c.yaml', '--check'])).toEqual({ kind: 'check' });
    expect(parseArgs(['--check', '--version'])).toEqual({ kind: 'version' });
    expect(parseArgs(['--check', '--help'])).toEqual({ kind: 'help' });
  });

  it('accepts --help, --version and --config FILE', () => {
    expect(parseArgs([])).toEqual({ kind: 'run' });
    expect(parseArgs(['--config', 'c.yaml'])).toEqual({ kind: 'run' });
    expect(parseArgs(['--config=c.yaml'])).toEqual({ kind: 'run' });
    expect(parseArgs(['--version'])).toEqual({ kind: 'version' });
    expect(parseArgs(['-v'])).toEqual({ kind: 'version' });
    expect(parseArgs(['--bogus', '--help'])).toEqual({ kind: 'help' });
  });

  it('refuses anything else, naming the setting a flag spells', () => {
    const r = parseArgs(['--upstream-urls=http://a', '--bogus', 'x']);
    expect(r.kind).toBe('error');
    if (r.kind !== 'error') return;
    expect(r.message).toContain(
      'unknown options --upstream-urls=http://a --bogus x ' +
        '(accepted: --config FILE, --check, --help, -h, --version, -v)',
    );
    expect(r.message).toContain('settings are environment variables: UPSTREAM_URLS=http://a chainproxy');
    expect(parseArgs(['--config'])).toEqual({
      kind: 'error',
      message: '--config: expected a file name after it, got nothing',
    });
  });
});

describe('--help by topic', () => {
  it('every setting belongs to a topic group', () => {
    for (const f of [...FIELDS.map((x) => x.env), 'CONFIG_FILE']) expect(groupOf(f), f).not.toBeNull();
  });

  it('prints each group as a heading with its settings under it, in the groups order', () => {
    const text = helpText();
    const headings = GROUPS.map((g) => text.indexOf(`\n${g.title}:\n`));
    expect(headings.every((i) => i > 0)).toBe(true);
    expect([...headings].sort((a, b) => a - b)).toEqual(headings);
    expect(text).not.toContain('\nOther:\n');
    // A setting sits under its own group's heading.
    const under = (env: string): string => {
      const at = text.indexOf(`  ${env}  (file:`);
      return GROUPS.filter((g) => text.indexOf(`\n${g.title}:\n`) < at).at(-1)!.title;
    };
    expect(under('REDIS_LEASE_MS')).toBe(groupOf('REDIS_LEASE_MS')!.title);
    expect(under('MAX_STREAMS')).toBe('Head stream (/stream/heads)');
    expect(under('PORT')).toBe('Server');
    expect(text).toContain('--version, -v');
  });
});
