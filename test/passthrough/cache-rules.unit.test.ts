/** The passthrough cache's storability and freshness rules (RFC 9111 shared cache, narrowed by the proxy's own). */
import { describe, expect, it } from 'vitest';
import {
  backendFreshMs,
  directivesOf,
  neverStored,
  passTerms,
  PASS_DEFAULT_SIE_MS,
  PASS_HEAD_MAX_MS,
  PASS_MAX_FRESH_MS,
  requestBypasses,
  varyAllowsStoring,
} from '../../src/passthrough/cache-rules.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('requestBypasses', () => {
  it('bypasses methods other than GET and HEAD, credentials and ranges', () => {
    expect(requestBypasses('GET', {})).toBe(false);
    expect(requestBypasses('HEAD', { accept: 'application/json' })).toBe(false);
    expect(requestBypasses('POST', {})).toBe(true);
    expect(requestBypasses('GET', { authorization: 'Bearer x' })).toBe(true);
    expect(requestBypasses('GET', { cookie: 'a=1' })).toBe(true);
    expect(requestBypasses('GET', { range: 'bytes=0-1' })).toBe(true);
  });
});

describe('directivesOf', () => {
  it('reads names case-insensitively, values unquoted, the first of a repeated one', () => {
    const d = directivesOf('Public, MAX-AGE="60", s-maxage=5, max-age=9, no-cache');
    expect(d.get('max-age')).toBe('60');
    expect(d.get('s-maxage')).toBe('5');
    expect(d.get('public')).toBe('');
    expect(d.has('no-cache')).toBe(true);
    expect(directivesOf(['private', 'max-age=1']).has('private')).toBe(true);
  });
});

describe('neverStored', () => {
  it('refuses no-store, private, Set-Cookie, statuses other than 200/404 and a Vary beyond Accept-Encoding', () => {
    expect(neverStored(200, {})).toBe(false);
    expect(neverStored(404, {})).toBe(false);
    expect(neverStored(200, { 'cache-control': 'no-store, max-age=60' })).toBe(true);
    expect(neverStored(200, { 'cache-control': 'private, max-age=60' })).toBe(true);
    expect(neverStored(200, { 'cache-control': 'private="x-user"' })).toBe(true);
    expect(neverStored(200, { 'set-cookie': ['s=1'] })).toBe(true);
    for (const status of [201, 204, 206, 301, 302, 304, 400, 410, 500, 503]) expect(neverStored(status, {})).toBe(true);
    expect(neverStored(200, { vary: 'Accept-Encoding' })).toBe(false);
    expect(neverStored(200, { vary: 'Accept-Language' })).toBe(true);
    expect(neverStored(200, { vary: '*' })).toBe(true);
  });

  it('varyAllowsStoring: only Accept-Encoding, any case and spacing', () => {
    expect(varyAllowsStoring({ vary: ' accept-encoding ,Accept-Encoding' })).toBe(true);
    expect(varyAllowsStoring({ vary: 'Accept-Encoding, Origin' })).toBe(false);
  });
});

describe('backendFreshMs', () => {
  it('s-maxage before max-age before Expires, less Age', () => {
    expect(backendFreshMs({ 'cache-control': 's-maxage=5, max-age=60' }, NOW)).toBe(5000);
    expect(backendFreshMs({ 'cache-control': 'max-age=60' }, NOW)).toBe(60_000);
    expect(backendFreshMs({ 'cache-control': 'max-age=60', age: '50' }, NOW)).toBe(10_000);
    expect(backendFreshMs({ 'cache-control': 'max-age=60', age: '70' }, NOW)).toBeNull();
    const date = new Date(NOW - 3_600_000).toUTCString();
    const expires = new Date(NOW - 3_600_000 + 30_000).toUTCString();
    expect(backendFreshMs({ date, expires }, NOW)).toBe(30_000);
  });

  it('none without freshness, with no-cache, max-age=0 or an invalid Expires', () => {
    expect(backendFreshMs({}, NOW)).toBeNull();
    expect(backendFreshMs({ 'cache-control': 'public' }, NOW)).toBeNull();
    expect(backendFreshMs({ 'cache-control': 'no-cache, max-age=60' }, NOW)).toBeNull();
    expect(backendFreshMs({ 'cache-control': 'max-age=0' }, NOW)).toBeNull();
    expect(backendFreshMs({ expires: '0' }, NOW)).toBeNull();
    expect(backendFreshMs({ 'cache-control': 'max-age=abc' }, NOW)).toBeNull();
  });

  it('is capped', () => {
    expect(backendFreshMs({ 'cache-control': 'max-age=31536000' }, NOW)).toBe(PASS_MAX_FRESH_MS);
  });
});

describe('passTerms', () => {
  it('without a policy: the backend headers; nothing stored without freshness', () => {
    expect(passTerms(200, {}, undefined, NOW)).toBeNull();
    expect(passTerms(200, { 'cache-control': 'max-age=10' }, undefined, NOW)).toEqual({
      ttlMs: 10_000,
      swrMs: 0,
      sieMs: PASS_DEFAULT_SIE_MS,
      headDependent: false,
      negative: false,
    });
    expect(
      passTerms(200, { 'cache-control': 'max-age=10, stale-while-revalidate=3, stale-if-error=7' }, undefined, NOW),
    ).toMatchObject({ swrMs: 3000, sieMs: 7000 });
    expect(passTerms(200, { 'cache-control': 'max-age=10, must-revalidate' }, undefined, NOW)).toMatchObject({
      swrMs: 0,
      sieMs: 0,
    });
    expect(passTerms(404, { 'cache-control': 'max-age=10' }, undefined, NOW)).toMatchObject({ negative: true });
  });

  it('a policy replaces the freshness, never what the backend forbids', () => {
    const ttl = { kind: 'ttl', ms: 2000 } as const;
    expect(passTerms(200, {}, ttl, NOW)).toMatchObject({ ttlMs: 2000, swrMs: 2000, headDependent: false });
    expect(passTerms(200, { 'cache-control': 'no-cache' }, ttl, NOW)).toMatchObject({ ttlMs: 2000 });
    expect(passTerms(200, {}, { kind: 'head' }, NOW)).toMatchObject({ ttlMs: PASS_HEAD_MAX_MS, headDependent: true });
    expect(passTerms(200, {}, { kind: 'off' }, NOW)).toBeNull();
    for (const policy of [ttl, { kind: 'head' } as const, undefined]) {
      expect(passTerms(200, { 'cache-control': 'no-store, max-age=60' }, policy, NOW)).toBeNull();
      expect(passTerms(200, { 'cache-control': 'private, max-age=60' }, policy, NOW)).toBeNull();
      expect(passTerms(200, { 'cache-control': 'max-age=60', 'set-cookie': 'a=1' }, policy, NOW)).toBeNull();
    }
  });
});
