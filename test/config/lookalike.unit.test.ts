import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { editDistance } from '../../src/config/lookalike.js';
import { errorsOf } from './helpers.js';

describe('variables that look like a setting but are not one', () => {
  it.each([
    ['UPSTREAM_URL', 'UPSTREAM_URLS'],
    ['UPSTREAMS_URLS', 'UPSTREAM_URLS'],
    ['REDIS_URI', 'REDIS_URL'],
    ['CACHE_MAX_BYTE', 'CACHE_MAX_BYTES'],
    ['LOGLEVEL', 'LOG_LEVEL'],
    ['upstream_urls', 'UPSTREAM_URLS'],
    ['UPSTRAEM_URLS', 'UPSTREAM_URLS'],
    ['CONFIG_FILES', 'CONFIG_FILE'],
    ['PORTS', 'PORT'],
  ])('%s is refused, naming %s', (name, setting) => {
    const errors = errorsOf({ [name]: 'http://backend:8080' });
    expect(errors).toEqual([
      `${name}: expected a known setting, got an unknown variable that ` +
        `resembles ${setting} (rename it to ${setting}, or unset it)`,
    ]);
  });

  it('REDIS_PASSWORD is refused, saying the password goes in REDIS_URL', () => {
    expect(errorsOf({ REDIS_PASSWORD: 's3cret' })).toEqual([
      'REDIS_PASSWORD: expected no such variable, got one: the password goes in REDIS_URL: ' +
        'redis://:PASSWORD@host:6379 (or redis://USER:PASSWORD@host) (then unset REDIS_PASSWORD)',
    ]);
  });

  it.each([
    ['UPSTREAM_RETRIES', 'UPSTREAM_'],
    ['RATE_LIMIT_PER_MINUTE', 'RATE_LIMIT_'],
    ['STREAM_MAX', 'STREAM_'],
  ])('%s (a family prefix with an unknown tail) is refused, listing the %s settings', (name, prefix) => {
    const [error, ...rest] = errorsOf({ [name]: '1' });
    expect(rest).toEqual([]);
    expect(error).toMatch(
      new RegExp(
        `^${name}: expected one of the ${prefix}\\* settings \\(${prefix}\\w+(, ` +
          `${prefix}\\w+)*\\), got an unknown variable \\(rename it, or unset it\\)$`,
      ),
    );
  });

  it('every lookalike is reported at once, beside the other errors', () => {
    const errors = errorsOf({ UPSTREAM_URL: 'http://a', REDIS_URI: 'redis://r', PORT: 'eighty' });
    expect(errors).toHaveLength(3);
    expect(errors.some((e) => e.startsWith('PORT: expected an integer'))).toBe(true);
    expect(errors.filter((e) => e.includes('resembles'))).toHaveLength(2);
  });

  it('common unrelated variables pass: shell, runtime, package manager, CI, container service links', () => {
    const env: Record<string, string> = {
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'pod-1',
      PWD: '/app',
      USER: 'node',
      SHELL: '/bin/sh',
      TERM: 'xterm',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      NODE_ENV: 'production',
      NODE_OPTIONS: '--max-old-space-size=256',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      npm_config_cache: '/tmp/npm',
      npm_package_name: 'chainproxy',
      npm_lifecycle_event: 'start',
      // Kubernetes links for services named redis and upstream; a Docker link.
      REDIS_PORT: 'tcp://10.0.0.7:6379',
      REDIS_SERVICE_HOST: '10.0.0.7',
      REDIS_SERVICE_PORT: '6379',
      REDIS_SERVICE_PORT_REDIS: '6379',
      REDIS_PORT_6379_TCP: 'tcp://10.0.0.7:6379',
      REDIS_PORT_6379_TCP_ADDR: '10.0.0.7',
      REDIS_PORT_6379_TCP_PROTO: 'tcp',
      UPSTREAM_SERVICE_HOST: '10.0.0.8',
      REDIS_NAME: '/app/redis',
      // Empty counts as unset, as for settings.
      UPSTREAM_URL: '',
    };
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('edit distance counts a swap as one edit', () => {
    expect(editDistance('HOME', 'HOST')).toBe(2);
    expect(editDistance('AB', 'BA')).toBe(1);
    expect(editDistance('UPSTREAM_URL', 'UPSTREAM_URLS')).toBe(1);
    expect(editDistance('', 'PORT')).toBe(4);
  });
});
