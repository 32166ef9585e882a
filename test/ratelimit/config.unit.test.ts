/**
 * Rate-limit settings: RATE_LIMIT_ALLOW from the environment, `apiKeys:` from
 * CONFIG_FILE, every mistake reported as `NAME: expected X, got Y` and no key
 * value ever shown in a message.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from '../config/helpers.js';

const SECRET = 'partner-secret-0123456789';
const DIGEST = 'a'.repeat(64);

describe('rate-limit configuration', () => {
  it('reads RATE_LIMIT_ALLOW and apiKeys', () => {
    const file = tempFile(
      '.yaml',
      `apiKeys:\n  - { name: explorer, key: "${SECRET}", max: 100000 }\n  - { ` +
        `name: p.2, sha256: "${DIGEST.toUpperCase()}", max: 50, windowMs: 1000 }\n`,
    );
    const c = loadConfig({ CONFIG_FILE: file, RATE_LIMIT_ALLOW: '10.0.0.0/8, ::1,loopback' });
    expect(c.rateLimitAllow).toEqual(['10.0.0.0/8', '::1', 'loopback']);
    expect(c.apiKeys).toEqual([
      { name: 'explorer', key: SECRET, max: 100000 },
      { name: 'p.2', sha256: DIGEST, max: 50, windowMs: 1000 },
    ]);
    expect(loadConfig({}).apiKeys).toEqual([]);
  });

  it('names each mistake and never shows a key', () => {
    const file = tempFile(
      '.json',
      JSON.stringify({
        apiKeys: [
          { name: 'a', key: 'short', max: 1 },
          { name: 'a', key: SECRET, max: 0 },
          { name: 'bad name', key: SECRET, sha256: DIGEST, max: 5, windowMs: 10 },
          { name: 'c', max: 5, extra: 1 },
          'nope',
        ],
      }),
    );
    const errors = errorsOf({ CONFIG_FILE: file, RATE_LIMIT_ALLOW: '10.0.0.0/33' });
    const text = errors.join('\n');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('short');
    for (const part of [
      'RATE_LIMIT_ALLOW: expected comma-separated IP addresses or CIDRs',
      'apiKeys (in ',
      '[0].key: expected 16 to 256 printable characters',
      '[1].name: expected a name not used by another key, got "a"',
      '[1].max: expected an integer from 1 to 1000000000, got 0',
      "[2].name: expected 1 to 64 letters, digits, '_', '.' or '-', got \"bad name\"",
      '[2]: expected exactly one of key, sha256',
      '[2].windowMs: expected an integer from 1000',
      '[3].extra: expected one of name, key, sha256, max, windowMs, got an unknown key',
      '[3]: expected exactly one of key, sha256',
      '[4]: expected a map',
    ])
      expect(text, part).toContain(part);
  });

  it('rejects apiKeys that is not a list, and duplicate keys', () => {
    expect(errorsOf({ CONFIG_FILE: tempFile('.yaml', 'apiKeys: { a: 1 }\n') }).join('\n')).toContain('apiKeys (in');
    const dup = tempFile(
      '.yaml',
      `apiKeys:\n  - { name: a, key: "${SECRET}", max: 1 }\n  - { name: b, key: "${SECRET}", max: 1 }\n`,
    );
    const text = errorsOf({ CONFIG_FILE: dup }).join('\n');
    expect(text).toContain('[1]: expected a key not used by another entry');
    expect(text).not.toContain(SECRET);
  });
});
