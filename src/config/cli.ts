/**
 * Command-line flags. Settings are environment variables (or CONFIG_FILE keys),
 * never flags: an unknown flag stops start-up (exit 2) instead of being
 * ignored, and one that spells a setting (`--port 9702`) says how to set it.
 */
import { FIELDS } from './fields.js';

export type Cli =
  { kind: 'run' } | { kind: 'check' } | { kind: 'help' } | { kind: 'version' } | { kind: 'error'; message: string };

/** The accepted flags, for --help and the error message. */
export const OPTIONS: ReadonlyArray<{ flag: string; help: string }> = [
  { flag: '--config FILE', help: 'read settings from a YAML or JSON file (same as CONFIG_FILE)' },
  {
    flag: '--check',
    help:
      'validate the settings, probe every upstream and Redis ' +
      'once, print what was found; exit 0 when all is well, else 2',
  },
  { flag: '--help, -h', help: 'print this help and exit' },
  { flag: '--version, -v', help: 'print the version and exit' },
];

/** `--upstream-urls` → UPSTREAM_URLS when that is a setting. */
function settingOf(flag: string): string | null {
  const env = flag.replace(/^-+/, '').split('=')[0]!.replaceAll('-', '_').toUpperCase();
  return FIELDS.some((f) => f.env === env) ? env : null;
}

export function parseArgs(argv: readonly string[]): Cli {
  const unknown: string[] = [];
  let wanted: Cli = { kind: 'run' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return { kind: 'help' };
    if (a === '--version' || a === '-v') wanted = { kind: 'version' };
    else if (a === '--check') {
      if (wanted.kind === 'run') wanted = { kind: 'check' };
    } else if (a === '--config') {
      const file = argv[i + 1];
      if (file === undefined || file.startsWith('-'))
        return { kind: 'error', message: '--config: expected a file name after it, got nothing' };
      i++;
    } else if (a.startsWith('--config=')) {
      if (a === '--config=') return { kind: 'error', message: '--config: expected a file name after it, got nothing' };
    } else unknown.push(a);
  }
  if (unknown.length === 0) return wanted;
  const accepted = OPTIONS.map((o) => o.flag).join(', ');
  const lines = [`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.join(' ')} (accepted: ${accepted})`];
  const settings: string[] = [];
  unknown.forEach((a, i) => {
    const env = a.startsWith('-') ? settingOf(a) : null;
    if (env === null) return;
    const next = unknown[i + 1];
    const value = a.includes('=')
      ? a.slice(a.indexOf('=') + 1)
      : next !== undefined && !next.startsWith('-')
        ? next
        : '...';
    settings.push(`${env}=${value}`);
  });
  if (settings.length > 0)
    lines.push(`settings are environment variables: ${settings.join(' ')} chainproxy (see --help)`);
  return { kind: 'error', message: lines.join('\n') };
}
