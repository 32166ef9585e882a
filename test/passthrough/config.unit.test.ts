/** PASSTHROUGH and PASSTHROUGH_TIMEOUT_MS: parsed from env and CONFIG_FILE, every bad route refused at start. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { RESERVED_PATHS } from '../../src/catalogue/paths.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { errorsOf, tempFile } from '../config/helpers.js';

describe('PASSTHROUGH', () => {
  it('parses prefix=url pairs from the environment', () => {
    const c = loadConfig({
      PASSTHROUGH: ' /api=http://legacy:8080/ , /explorer=https://old.example/v2 ',
      PASSTHROUGH_TIMEOUT_MS: '2500',
    });
    expect(c.passthrough).toEqual({
      routes: [
        { prefix: '/api', target: 'http://legacy:8080' },
        { prefix: '/explorer', target: 'https://old.example/v2' },
      ],
      timeoutMs: 2500,
      cache: {},
      ignoreParams: [],
      cacheMaxBodyBytes: 1024 * 1024,
    });
  });

  it('defaults to no routes and a 10 s timeout', () => {
    expect(loadConfig({}).passthrough).toEqual({
      routes: [],
      timeoutMs: 10_000,
      cache: {},
      ignoreParams: [],
      cacheMaxBodyBytes: 1024 * 1024,
    });
  });

  it('reads a map or a list from CONFIG_FILE', () => {
    const yaml = tempFile(
      '.yaml',
      'passthrough:\n  routes:\n    /api: http://legacy:8080\n    /node: http://node:8685\n  timeoutMs: 3000\n',
    );
    expect(loadConfig({ CONFIG_FILE: yaml }).passthrough.routes.map((r) => r.prefix)).toEqual(['/api', '/node']);
    const json = tempFile('.json', JSON.stringify({ passthrough: { routes: ['/api=http://legacy:8080'] } }));
    expect(loadConfig({ CONFIG_FILE: json }).passthrough.routes).toEqual([
      { prefix: '/api', target: 'http://legacy:8080' },
    ]);
  });

  it.each([
    ['/tx=http://l', `PASSTHROUGH: expected a prefix clear of the proxy's own path /tx/nrc20, got "/tx"`],
    [
      '/block/max=http://l',
      `PASSTHROUGH: expected a prefix clear of the proxy's own path /block/max, got "/block/max"`,
    ],
    [
      '/tx/list/more=http://l',
      `PASSTHROUGH: expected a prefix clear of the proxy's own path /tx/list, got "/tx/list/more"`,
    ],
    ['/status=http://l', `PASSTHROUGH: expected a prefix clear of the proxy's own path /status, got "/status"`],
    ['/metrics/x=http://l', `PASSTHROUGH: expected a prefix clear of the proxy's own path /metrics, got "/metrics/x"`],
    [
      '/pages/legacy=http://l',
      `PASSTHROUGH: expected a prefix clear of the proxy's own path /pages, got "/pages/legacy"`,
    ],
    ['/batch=http://l', `PASSTHROUGH: expected a prefix clear of the proxy's own path /batch, got "/batch"`],
    ['/stream=http://l', `PASSTHROUGH: expected a prefix clear of the proxy's own path /stream, got "/stream"`],
    [
      '/openapi.json=http://l',
      `PASSTHROUGH: expected a prefix clear of the proxy's own path /openapi.json, got "/openapi.json"`,
    ],
    [
      '/dashboard=http://l',
      `PASSTHROUGH: expected a prefix clear of the proxy's own path /dashboard, got "/dashboard"`,
    ],
    [
      '/api=http://a,/api/v2=http://b',
      'PASSTHROUGH: expected a prefix clear of the other passthrough prefix /api, got "/api/v2"',
    ],
    [
      '/api=http://a,/api=http://b',
      'PASSTHROUGH: expected a prefix clear of the other passthrough prefix /api, got "/api"',
    ],
  ])('refuses an overlapping prefix: %s', (value, message) => {
    expect(errorsOf({ PASSTHROUGH: value })).toEqual([message]);
  });

  it.each([
    'api=http://l',
    '/api/=http://l',
    '/=http://l',
    '/a b=http://l',
    '/api/../status=http://l',
    '/:id=http://l',
    '/api/*=http://l',
  ])('refuses a malformed prefix: %s', (value) => {
    const [message] = errorsOf({ PASSTHROUGH: value });
    expect(message).toMatch(/^PASSTHROUGH: expected a path prefix such as \/api .*, got "/);
  });

  it.each(['/api=ftp://l', '/api=http://user:pw@l', '/api=http://l/?q=1', '/api=', '/api', '/api=legacy:8080'])(
    'refuses a bad target URL: %s',
    (value) => {
      const [message] = errorsOf({ PASSTHROUGH: value });
      expect(message).toMatch(
        /^PASSTHROUGH: expected an http:\/\/ or https:\/\/ URL without credentials, query or fragment for \/api, got /,
      );
    },
  );

  it('refuses a bad timeout', () => {
    expect(errorsOf({ PASSTHROUGH_TIMEOUT_MS: '5' })).toEqual([
      'PASSTHROUGH_TIMEOUT_MS: expected an integer from 100 to 600000, got "5"',
    ]);
  });

  it('reserves every API endpoint, every ops path and the namespaces kept whole', () => {
    const fixed = [
      '/healthz',
      '/readyz',
      '/status',
      '/metrics',
      '/openapi.json',
      '/batch',
      '/stream/heads',
      '/dashboard',
      '/dashboard/data.json',
      '/pages',
      '/stream',
    ];
    for (const p of [...ENDPOINT_NAMES.map((n) => `/${n}`), ...fixed]) expect(RESERVED_PATHS, p).toContain(p);
  });
});

describe('PASSTHROUGH_CACHE and PASSTHROUGH_IGNORE_PARAMS', () => {
  const routes = '/explorer=http://b:1,/api=http://b:2,/node=http://b:3';

  it('parses off, head and durations per prefix, and the ignored parameters', () => {
    const c = loadConfig({
      PASSTHROUGH: routes,
      PASSTHROUGH_CACHE: '/explorer=head, /api=2s,/node=off',
      PASSTHROUGH_IGNORE_PARAMS: 'timestamp, _',
      PASSTHROUGH_CACHE_MAX_BODY_BYTES: '64KiB',
    });
    expect(c.passthrough.cache).toEqual({
      '/explorer': { kind: 'head' },
      '/api': { kind: 'ttl', ms: 2000 },
      '/node': { kind: 'off' },
    });
    expect(c.passthrough.ignoreParams).toEqual(['timestamp', '_']);
    expect(c.passthrough.cacheMaxBodyBytes).toBe(65_536);
  });

  it('reads passthrough.cache as a map from CONFIG_FILE', () => {
    const yaml = tempFile(
      '.yaml',
      'passthrough:\n  routes:\n    /explorer: http://b:1\n  cache:\n    /explorer: 500ms\n' +
        '  ignoreParams: [timestamp]\n',
    );
    const c = loadConfig({ CONFIG_FILE: yaml });
    expect(c.passthrough.cache).toEqual({ '/explorer': { kind: 'ttl', ms: 500 } });
    expect(c.passthrough.ignoreParams).toEqual(['timestamp']);
  });

  it('refuses a prefix that is not in PASSTHROUGH', () => {
    expect(errorsOf({ PASSTHROUGH: routes, PASSTHROUGH_CACHE: '/explorer=head,/other=2s' })).toEqual([
      'PASSTHROUGH_CACHE: expected prefixes of PASSTHROUGH, got "/other"',
    ]);
  });

  it.each(['/explorer=forever', '/explorer=2h', '/explorer', 'explorer=2s', '/explorer=0s'])(
    'refuses a bad policy: %s',
    (value) => {
      const [message] = errorsOf({ PASSTHROUGH: routes, PASSTHROUGH_CACHE: value });
      expect(message).toMatch(/^PASSTHROUGH_CACHE: expected /);
    },
  );

  it('refuses a parameter name with characters a query name never has unencoded', () => {
    expect(errorsOf({ PASSTHROUGH_IGNORE_PARAMS: 'a b' })).toEqual([
      'PASSTHROUGH_IGNORE_PARAMS: expected comma-separated query parameter names, got "a b"',
    ]);
  });
});
