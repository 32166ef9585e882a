import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from './helpers.js';

const YAML = `
port: 9001
upstreamUrls:
  - http://up-a.example/
  - https://up-b.example/prefix
cacheMaxBytes: 128MiB
limits:
  maxPageSize: 50
  maxDays: 100
upstream:
  attemptTimeoutMs: 3000
  hedgeAfterMs: 0
rateLimit: { enabled: false }
trustProxy: 10.0.0.0/8, 192.168.1.1
policies:
  block/detail: { finalTtlMs: 604800000 }
  tx/detail:
    negativeTtlMs: 0
    invalidateOnHead: true
`;

describe('CONFIG_FILE', () => {
  it('loads YAML', () => {
    const c = loadConfig({ CONFIG_FILE: tempFile('.yaml', YAML) });
    expect(c.port).toBe(9001);
    expect(c.publicBaseUrl).toBe('http://localhost:9001');
    expect(c.upstreamUrls).toEqual(['http://up-a.example', 'https://up-b.example/prefix']);
    expect(c.cacheMaxBytes).toBe(128 * 1024 * 1024);
    expect(c.limits).toEqual({ maxPageSize: 50, maxDays: 100, requestTimeoutMs: 15_000, maxBatchItems: 20 });
    expect(c.upstream.attemptTimeoutMs).toBe(3000);
    expect(c.upstream.hedgeAfterMs).toBe(0);
    expect(c.upstream.connections).toBe(32);
    expect(c.rateLimit.enabled).toBe(false);
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(c.policies).toEqual({
      'block/detail': { finalTtlMs: 604_800_000 },
      'tx/detail': { negativeTtlMs: 0, invalidateOnHead: true },
    });
  });

  it('loads JSON (.json), and --config in argv', () => {
    const path = tempFile('.json', JSON.stringify({ limits: { maxPageSize: 42 }, redisUrl: 'redis://r:6379' }));
    expect(loadConfig({ CONFIG_FILE: path }).limits.maxPageSize).toBe(42);
    expect(loadConfig({}, ['--config', path]).redisUrl).toBe('redis://r:6379');
    expect(loadConfig({}, [`--config=${path}`]).redisUrl).toBe('redis://r:6379');
  });

  it('environment wins over the file', () => {
    const path = tempFile('.yml', 'port: 9001\nlimits: { maxPageSize: 50 }\n');
    const c = loadConfig({ CONFIG_FILE: path, PORT: '9002', MAX_PAGE_SIZE: '60' });
    expect(c.port).toBe(9002);
    expect(c.limits.maxPageSize).toBe(60);
  });

  it('an empty file is fine', () => {
    expect(loadConfig({ CONFIG_FILE: tempFile('.yaml', '') }).port).toBe(8080);
  });

  it('file errors name the key and the file, all at once', () => {
    const path = tempFile(
      '.yaml',
      `port: http
bogus: 1
limits: { maxPageSize: 0, pageSize: 5 }
upstream: 7
policies:
  tx/nope: { ttlMs: 1 }
  block/max: { ttlMs: -1, tll: 5, invalidateOnHead: "sometimes" }
`,
    );
    const errors = errorsOf({ CONFIG_FILE: path });
    const at = `(in ${path})`;
    expect(errors).toEqual([
      `port ${at}: expected an integer from 0 to 65535, got "http"`,
      `bogus ${at}: expected a known setting (see --help), got an unknown key`,
      `limits.maxPageSize ${at}: expected an integer from 1 to 10000, got 0`,
      `limits.pageSize ${at}: expected a known setting (see --help), got an ` +
        'unknown key that resembles limits.maxPageSize (rename it to limits.maxPageSize)',
      `upstream ${at}: expected a map of settings, got 7`,
      expect.stringMatching(/^policies \(in .*\)\.tx\/nope: expected an endpoint name \(one of tx\/nrc20, /),
      expect.stringMatching(/^policies \(in .*\)\.block\/max\.ttlMs: expected an integer from 0 to \d+, got -1$/),
      expect.stringMatching(/^policies \(in .*\)\.block\/max\.tll: expected one of ttlMs, finalTtlMs, .*got "tll"$/),
      expect.stringMatching(
        /^policies \(in .*\)\.block\/max\.invalidateOnHead: expected true or false, got "sometimes"$/,
      ),
    ]);
  });

  it('an unknown key that resembles a known one says which, as a misspelt variable does', () => {
    const path = tempFile(
      '.yaml',
      `upstreamUrl: http://backend:8080
UPSTREAM_CONNECTIONS: 8
upstrem: { maxAttempts: 2 }
rateLimit: { Max: 5 }
connectTimeoutMs: 500
upstream: { timeoutMs: 5 }
`,
    );
    const at = `(in ${path})`;
    const unknown = `expected a known setting (see --help), got an unknown key`;
    expect(errorsOf({ CONFIG_FILE: path })).toEqual([
      `upstreamUrl ${at}: ${unknown} that resembles upstreamUrls (rename it to upstreamUrls)`,
      `UPSTREAM_CONNECTIONS ${at}: ${unknown}: a variable's name; in a ` +
        'file the key is upstream.connections (rename it to upstream.connections)',
      `upstrem ${at}: ${unknown} that resembles upstream (rename it to upstream)`,
      `rateLimit.Max ${at}: ${unknown} that resembles rateLimit.max (rename it to rateLimit.max)`,
      `connectTimeoutMs ${at}: ${unknown} that resembles ` +
        'upstream.connectTimeoutMs (rename it to upstream.connectTimeoutMs)',
      // Two keys of upstream: contain it (attemptTimeoutMs, connectTimeoutMs): no guess.
      `upstream.timeoutMs ${at}: ${unknown}`,
    ]);
  });

  it('cross checks name the file key when the value came from the file', () => {
    const path = tempFile('.json', JSON.stringify({ upstream: { totalDeadlineMs: 20_000 } }));
    expect(errorsOf({ CONFIG_FILE: path })).toEqual([
      `upstream.totalDeadlineMs (in ${path}): expected at most REQUEST_TIMEOUT_MS (15000), got 20000`,
    ]);
  });

  it('unreadable, unparsable and wrongly-typed files', () => {
    expect(errorsOf({ CONFIG_FILE: '/nonexistent/chainproxy.yaml' })[0]).toBe(
      'CONFIG_FILE: expected a readable file, got "/nonexistent/chainproxy.yaml" (ENOENT)',
    );
    expect(errorsOf({ CONFIG_FILE: tempFile('.toml', 'a=1') })[0]).toMatch(
      /^CONFIG_FILE: expected a \.yaml, \.yml or \.json file/,
    );
    expect(errorsOf({ CONFIG_FILE: tempFile('.json', '{nope') })[0]).toMatch(
      /^CONFIG_FILE: expected valid JSON in .*, got a syntax error/,
    );
    expect(errorsOf({ CONFIG_FILE: tempFile('.yaml', 'a: [1\n') })[0]).toMatch(/^CONFIG_FILE: expected valid YAML/);
    expect(errorsOf({ CONFIG_FILE: tempFile('.yaml', 'port: 1\nport: 2\n') })[0]).toMatch(
      /^CONFIG_FILE: expected valid YAML/,
    );
    expect(errorsOf({ CONFIG_FILE: tempFile('.yaml', '- 1\n- 2\n') })[0]).toMatch(
      /^CONFIG_FILE: expected a map of settings/,
    );
  });

  it('file and environment errors together', () => {
    const path = tempFile('.yaml', 'port: -5\n');
    expect(errorsOf({ CONFIG_FILE: path, LOG_LEVEL: 'x' })).toHaveLength(2);
  });
});
