import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { FIELDS } from '../../src/config/fields.js';
import { LIVE, RESTART } from '../../src/config/reload-classes.js';
import { configChanges, withLiveSettings } from '../../src/config/reload-diff.js';

describe('what SIGHUP does with each setting', () => {
  it('every setting and CONFIG_FILE-only section is classified once: live or restart', () => {
    const all = [...LIVE, ...RESTART];
    expect(new Set(all).size).toBe(all.length);
    const settings = [
      ...FIELDS.map((f) => f.env),
      'apiKeys',
      'policies',
      'creditCosts',
      'pages',
      'invalidation.maxAgeByEndpoint',
    ];
    expect([...all].sort()).toEqual([...settings].sort());
  });

  it('a change is named by setting, split into live and restart', () => {
    const a = defaultConfig();
    const b = defaultConfig();
    b.rateLimit.max = a.rateLimit.max + 1;
    b.port = 9999;
    b.apiKeys = [{ name: 'k', key: 'secret-key-123456', max: 5 }] as typeof b.apiKeys;
    b.pages = { ...b.pages, extra: { params: [], parts: [] } } as unknown as typeof b.pages;
    b.stream.retryMs = a.stream.retryMs + 1;
    expect(configChanges(a, b)).toEqual({
      live: ['RATE_LIMIT_MAX', 'apiKeys', 'pages'],
      restart: ['PORT', 'STREAM_RETRY_MS'],
    });
    expect(configChanges(a, defaultConfig())).toEqual({ live: [], restart: [] });
  });

  it('the running configuration after a reload: live settings new, the others kept', () => {
    const a = defaultConfig();
    const b = defaultConfig();
    b.rateLimit.max = 7;
    b.adminAllow = ['10.0.0.0/8'];
    b.port = 9999;
    b.upstreamUrls = ['http://other:1'];
    const r = withLiveSettings(a, b);
    expect(r.rateLimit.max).toBe(7);
    expect(r.adminAllow).toEqual(['10.0.0.0/8']);
    expect(r.port).toBe(a.port);
    expect(r.upstreamUrls).toEqual(a.upstreamUrls);
    expect(a.rateLimit.max).not.toBe(7);
    b.adminAllow.push('x');
    expect(r.adminAllow).toEqual(['10.0.0.0/8']);
  });

  it('UPSTREAM_URLS is live while the number of URLs stays the same (and is not zero)', () => {
    const a = defaultConfig();
    a.upstreamUrls = ['http://a:1', 'http://b:1'];
    const b = structuredClone(a);
    b.upstreamUrls = ['http://a:1', 'http://c:1'];
    expect(configChanges(a, b)).toEqual({ live: ['UPSTREAM_URLS'], restart: [] });
    expect(withLiveSettings(a, b).upstreamUrls).toEqual(['http://a:1', 'http://c:1']);
    b.upstreamUrls = ['http://a:1'];
    expect(configChanges(a, b)).toEqual({ live: [], restart: ['UPSTREAM_URLS'] });
    expect(withLiveSettings(a, b).upstreamUrls).toEqual(['http://a:1', 'http://b:1']);
    const none = defaultConfig();
    const some = defaultConfig();
    some.upstreamUrls = ['http://a:1'];
    expect(configChanges(none, some)).toEqual({ live: [], restart: ['UPSTREAM_URLS'] });
  });
});
