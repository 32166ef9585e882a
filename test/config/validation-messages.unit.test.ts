import { describe, expect, it } from 'vitest';
import { errorsOf } from './helpers.js';

describe('configuration errors name the variable and what is expected', () => {
  it.each([
    ['PORT', 'http', 'PORT: expected an integer from 0 to 65535, got "http"'],
    ['PORT', '70000', 'PORT: expected an integer from 0 to 65535, got "70000"'],
    ['PORT', '-1', 'PORT: expected an integer'],
    ['HOST', 'a b', 'HOST: expected a host name or IP address'],
    [
      'UPSTREAM_URLS',
      'ftp://x',
      'UPSTREAM_URLS: expected comma-separated http:// or https:// ' +
        'base URLs without credentials, query or fragment, got "ftp://x"',
    ],
    ['UPSTREAM_URLS', 'http://a,nope', 'UPSTREAM_URLS: expected comma-separated http:// or https:// base URLs'],
    ['UPSTREAM_URLS', 'http://u:p@a', 'UPSTREAM_URLS: expected'],
    ['PUBLIC_BASE_URL', 'https://x/?a=1', 'PUBLIC_BASE_URL: expected an http:// or https:// URL'],
    ['PUBLIC_BASE_URL', 'javascript:alert(1)', 'PUBLIC_BASE_URL: expected'],
    ['CACHE_MAX_BYTES', 'lots', 'CACHE_MAX_BYTES: expected a size from 1048576 to'],
    ['CACHE_MAX_BYTES', '1.5GiB', 'CACHE_MAX_BYTES: expected a size'],
    ['CACHE_MAX_BYTES', '10', 'CACHE_MAX_BYTES: expected a size from 1048576'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    ['ACCESS_LOG', 'some', 'ACCESS_LOG: expected one of all, misses, off, got "some"'],
    ['REDIS_URL', 'http://redis', 'REDIS_URL: expected a URL starting with redis://'],
    [
      'TRUST_PROXY',
      '10.0.0.0/33',
      'TRUST_PROXY: expected comma-separated IP addresses or CIDRs ' +
        '(or loopback, linklocal, uniquelocal), got "10.0.0.0/33"',
    ],
    ['TRUST_PROXY', 'example.com', 'TRUST_PROXY: expected'],
    ['RATE_LIMIT_ENABLED', 'maybe', 'RATE_LIMIT_ENABLED: expected true or false, got "maybe"'],
    ['RATE_LIMIT_MAX', '0', 'RATE_LIMIT_MAX: expected an integer from 1'],
    ['MAX_PAGE_SIZE', '1e3', 'MAX_PAGE_SIZE: expected an integer'],
    ['UPSTREAM_HEDGE_QUANTILE', '2', 'UPSTREAM_HEDGE_QUANTILE: expected a number from 0 to 0.999'],
    ['REDIS_KEY_PREFIX', 'a b', 'REDIS_KEY_PREFIX: expected 1 to 64 printable characters'],
    ['SIM_BLOCK_INTERVAL_MS', '1', 'SIM_BLOCK_INTERVAL_MS: expected an integer from 10'],
  ])('%s=%s', (name, value, message) => {
    const errors = errorsOf({ [name]: value });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it('collects every error at once', () => {
    const errors = errorsOf({ PORT: 'x', LOG_LEVEL: 'y', CACHE_MAX_BYTES: 'z' });
    expect(errors.map((e) => e.split(':')[0])).toEqual(['PORT', 'CACHE_MAX_BYTES', 'LOG_LEVEL']);
  });

  it('never echoes control characters, truncates long values', () => {
    const [msg] = errorsOf({ LOG_LEVEL: `x\u0007\n${'y'.repeat(200)}` });
    expect(msg).not.toMatch(/[\u0000-\u001f]/);
    expect(msg!.length).toBeLessThan(200);
  });

  it('cross checks of the timeouts', () => {
    expect(errorsOf({ UPSTREAM_DEADLINE_MS: '20000' })).toEqual([
      'UPSTREAM_DEADLINE_MS: expected at most REQUEST_TIMEOUT_MS (15000), got 20000',
    ]);
    expect(errorsOf({ UPSTREAM_TIMEOUT_MS: '12000' })[0]).toBe(
      'UPSTREAM_TIMEOUT_MS: expected at most UPSTREAM_DEADLINE_MS (10000), got 12000',
    );
    expect(errorsOf({ UPSTREAM_CONNECT_TIMEOUT_MS: '6000' })[0]).toMatch(
      /^UPSTREAM_CONNECT_TIMEOUT_MS: expected at most UPSTREAM_TIMEOUT_MS/,
    );
  });
});
