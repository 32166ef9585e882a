/**
 * serve(): the one lifecycle every entrance goes through. Parse → synchronous
 * hit → resolve with the request timeout, and the one outcome → status and
 * X-Cache mapping.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CacheEntry, CacheResult } from '../../src/cache/types.js';
import { ProxyError } from '../../src/errors/catalog.js';
import type { Resolution } from '../../src/pipeline/resolver.js';
import { envelopeVerdict, refused, serve, type Entrance, type Outcome } from '../../src/http/serve.js';
import { fakeClock } from '../helpers/clock.js';

function resolution(result: CacheResult, status = 200): Resolution {
  return {
    result,
    entry: { status } as CacheEntry,
    mem: undefined,
    upstream: null,
    upstreamMs: null,
    staleReason: null,
    error: null,
  };
}

interface Calls {
  parsed: string[];
  resolved: number;
  misses: number;
}

function entrance(o: { hit?: Resolution; resolve?: () => Promise<Outcome> } = {}): {
  e: Entrance<string>;
  calls: Calls;
} {
  const calls: Calls = { parsed: [], resolved: 0, misses: 0 };
  const e: Entrance<string> = {
    parse: (query) => {
      calls.parsed.push(query);
      if (query.includes('bad')) throw new ProxyError('BAD_PARAMETER', 'invalid parameter hash: bad');
      return `key:${query}`;
    },
    hit: () => o.hit,
    resolve: () => {
      calls.resolved++;
      return o.resolve === undefined ? Promise.resolve({ res: resolution('MISS'), parts: null }) : o.resolve();
    },
    partsOf: () => null,
  };
  return { e, calls };
}

const clock = fakeClock();
const request = (calls: Calls, url = '/tx/detail?hash=1', timeoutMs = 1000) => ({
  url,
  timeoutMs,
  clock: clock.now,
  miss: () => {
    calls.misses++;
    return { gone: undefined, payer: null };
  },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('serve', () => {
  it('answers a bad request synchronously with its 400 envelope, nothing looked up or resolved', () => {
    const { e, calls } = entrance({ hit: resolution('HIT') });
    const a = serve(e, request(calls, '/tx/detail?hash=bad'));
    expect(a).not.toBeInstanceOf(Promise);
    const answer = a as Exclude<typeof a, Promise<unknown>>;
    expect(answer.status).toBe(400);
    expect(answer.cache).toBe('ERROR');
    expect(answer.res).toBeNull();
    expect(answer.failure?.body.toString()).toContain('hash');
    expect(calls.resolved).toBe(0);
    expect(calls.misses).toBe(0);
  });

  it('answers a hit synchronously, with the query parsed from the URL and no miss context made', () => {
    const hit = resolution('HIT');
    const { e, calls } = entrance({ hit });
    const a = serve(e, request(calls));
    expect(a).not.toBeInstanceOf(Promise);
    const answer = a as Exclude<typeof a, Promise<unknown>>;
    expect(calls.parsed).toEqual(['hash=1']);
    expect(answer).toMatchObject({ status: 200, cache: 'HIT', req: 'key:hash=1', synchronous: true });
    expect(answer.res).toBe(hit);
    expect(answer.now).toBe(clock.now());
    expect(calls.misses).toBe(0);
  });

  it('resolves anything else, its X-Cache the resolution’s own result and its status the entry’s', async () => {
    const { e, calls } = entrance({ resolve: () => Promise.resolve({ res: resolution('STALE', 404), parts: null }) });
    const a = await serve(e, request(calls));
    expect(a).toMatchObject({ status: 404, cache: 'STALE', synchronous: false });
    expect(calls.misses).toBe(1);
  });

  it('maps an entrance failure and a rejection to ERROR with their status and envelope', async () => {
    const failure = { status: 502, body: Buffer.from('{"code":5021}'), message: 'required part head: bad gateway' };
    const f = entrance({ resolve: () => Promise.resolve({ failure }) });
    const a = await serve(f.e, request(f.calls));
    expect(a).toMatchObject({ status: 502, cache: 'ERROR', res: null, failure, error: null });
    const r = entrance({ resolve: () => Promise.reject(new ProxyError('UPSTREAM_UNAVAILABLE')) });
    const b = await serve(r.e, request(r.calls));
    expect(b.cache).toBe('ERROR');
    expect(b.error?.status).toBe(b.status);
    expect(b.status).toBeGreaterThanOrEqual(500);
  });

  it('answers 504 when the resolution takes longer than the request timeout', async () => {
    vi.useFakeTimers();
    const { e, calls } = entrance({ resolve: () => new Promise<Outcome>(() => {}) });
    const pending = serve(e, request(calls, '/tx/detail?hash=1', 250));
    vi.advanceTimersByTime(250);
    const a = await pending;
    expect(a).toMatchObject({ status: 504, cache: 'ERROR' });
  });

  it('on the fast path answers hits only, from the request parsed before', () => {
    const { e, calls } = entrance();
    const none = serve(e, { ...request(calls), parsed: 'key:known', hitOnly: true });
    expect(none).toBeNull();
    expect(calls.resolved).toBe(0);
    const hit = entrance({ hit: resolution('HIT') });
    const a = serve(hit.e, { ...request(hit.calls), parsed: 'key:known', hitOnly: true });
    expect(a?.req).toBe('key:known');
    expect(hit.calls.parsed).toEqual([]);
  });

  it('says ERROR on an error envelope and BYPASS on any other, and ERROR on a refusal', () => {
    expect(envelopeVerdict(400)).toBe('ERROR');
    expect(envelopeVerdict(503)).toBe('ERROR');
    expect(envelopeVerdict(200)).toBe('BYPASS');
    const r = refused(new ProxyError('ROUTE_NOT_FOUND', 'no such endpoint: /x'));
    expect(r).toMatchObject({ status: 404, cache: 'ERROR' });
  });
});
