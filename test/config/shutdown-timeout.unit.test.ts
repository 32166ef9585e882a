/**
 * SHUTDOWN_TIMEOUT_MS: derived from REQUEST_TIMEOUT_MS unless set (so every
 * request accepted before the signal can end on its own), settable shorter on
 * purpose, from the environment or the file, bounded, and in --help.
 */
import { describe, expect, it } from 'vitest';
import { SHUTDOWN_MARGIN_MS } from '../../src/config/defaults.js';
import { helpText } from '../../src/config/help.js';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from './helpers.js';

describe('SHUTDOWN_TIMEOUT_MS', () => {
  it('unset: REQUEST_TIMEOUT_MS + the margin, following REQUEST_TIMEOUT_MS wherever it is set', () => {
    expect(loadConfig({}).shutdownTimeoutMs).toBe(15_000 + SHUTDOWN_MARGIN_MS);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '30000' }).shutdownTimeoutMs).toBe(31_000);
    const file = tempFile('.yaml', 'limits: { requestTimeoutMs: 45000 }\n');
    expect(loadConfig({ CONFIG_FILE: file }).shutdownTimeoutMs).toBe(46_000);
  });

  it('set: taken as given, also shorter than REQUEST_TIMEOUT_MS (requests still running then get a 503)', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '25000' }).shutdownTimeoutMs).toBe(25_000);
    const file = tempFile('.json', JSON.stringify({ shutdownTimeoutMs: 2000 }));
    expect(loadConfig({ CONFIG_FILE: file }).shutdownTimeoutMs).toBe(2000);
    expect(loadConfig({ CONFIG_FILE: file, SHUTDOWN_TIMEOUT_MS: '3000' }).shutdownTimeoutMs).toBe(3000);
  });

  it('rejects what is not a duration from 100 ms to an hour', () => {
    expect(errorsOf({ SHUTDOWN_TIMEOUT_MS: '50' })).toEqual([
      'SHUTDOWN_TIMEOUT_MS: expected an integer from 100 to 3600000, got "50"',
    ]);
    expect(errorsOf({ SHUTDOWN_TIMEOUT_MS: 'soon' })[0]).toMatch(/^SHUTDOWN_TIMEOUT_MS: expected an integer/);
  });

  it('--help states the derived default and the rule', () => {
    const help = helpText();
    expect(help).toContain('SHUTDOWN_TIMEOUT_MS  (file: shutdownTimeoutMs)\n      default: REQUEST_TIMEOUT_MS + 1000');
    expect(help).toContain('requests still running at the deadline get a 503 envelope (code 5030)');
  });
});
