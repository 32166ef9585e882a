import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { loadConfig } from '../../src/config/load.js';

describe('loadConfig from the environment', () => {
  it('defaults', () => {
    const c = loadConfig({});
    expect(c).toEqual(defaultConfig());
    expect(c.publicBaseUrl).toBe('http://localhost:8080');
    expect(c.cacheMaxBytes).toBe(256 * 1024 * 1024);
  });

  it('PUBLIC_BASE_URL defaults to the port', () => {
    expect(loadConfig({ PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PORT: '9000', PUBLIC_BASE_URL: 'https://api.example.com/' }).publicBaseUrl).toBe(
      'https://api.example.com',
    );
  });

  it('parses every kind of value', () => {
    const c = loadConfig({
      PORT: '8081',
      HOST: '127.0.0.1',
      UPSTREAM_URLS: 'http://a.example:8000/, https://b.example/api/v1/ ,http://a.example:8000',
      CACHE_MAX_BYTES: '64MiB',
      LOG_LEVEL: 'debug',
      ACCESS_LOG: 'all',
      REDIS_URL: 'redis://localhost:6379/0',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback',
      MAX_PAGE_SIZE: '50',
      RATE_LIMIT_ENABLED: 'off',
      RATE_LIMIT_MAX: '100',
      UPSTREAM_HEDGE_QUANTILE: '0.9',
      UPSTREAM_MAX_BODY_BYTES: '2MB',
      SIM_SEED: '42',
    });
    expect(c.port).toBe(8081);
    expect(c.host).toBe('127.0.0.1');
    expect(c.upstreamUrls).toEqual(['http://a.example:8000', 'https://b.example/api/v1']);
    expect(c.cacheMaxBytes).toBe(64 * 1024 * 1024);
    expect(c.logLevel).toBe('debug');
    expect(c.accessLog).toBe('all');
    expect(c.redisUrl).toBe('redis://localhost:6379/0');
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback']);
    expect(c.limits.maxPageSize).toBe(50);
    expect(c.rateLimit).toEqual({ enabled: false, max: 100, windowMs: 60_000, maxClients: 100_000 });
    expect(c.upstream.hedgeQuantile).toBe(0.9);
    expect(c.upstream.maxBodyBytes).toBe(2_000_000);
    expect(c.simulator.seed).toBe(42);
  });

  it('empty variables count as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '', UPSTREAM_URLS: ' ' })).toEqual(defaultConfig());
  });

  it('size units', () => {
    const size = (v: string) => loadConfig({ CACHE_MAX_BYTES: v }).cacheMaxBytes;
    expect(size('1048576')).toBe(1048576);
    expect(size('1GiB')).toBe(1024 ** 3);
    expect(size('2048 kib')).toBe(2048 * 1024);
    expect(size('64MB')).toBe(64_000_000);
  });

  it('redis URL forms', () => {
    for (const u of ['rediss://user:pw@h:6380', 'redis-cluster://h1:1,h2:2', 'redis-sentinel://h1:1,h2:2/mymaster'])
      expect(loadConfig({ REDIS_URL: u }).redisUrl).toBe(u);
  });
});
