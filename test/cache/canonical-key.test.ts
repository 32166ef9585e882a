/**
 * Key canonicalization: spellings of the same request (parameter order,
 * percent-encoding, explicit defaults, leading zeros, flag spellings, hash
 * case, unknown parameters) share one cache entry and cost one upstream
 * request; unknown parameters never reach the upstream; distinct values are
 * distinct entries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startEnv, withoutStamps, type Env } from '../helpers/proxy-kit.js';

const ADDR = 'n1Gfg8uqtFsvGKZn6XtVmEb116ZtagRHDoe';
const HASH = 'eb3c8d848679ad1786d5986da48bcc5d5732141fd6fccde0a9a3bfd78ae1d970';

/** Percent-encodes every character of s. */
function pct(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

describe('canonical cache keys', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  /** Upstream request URLs for one path, in order. */
  const upstreamUrls = (path: string): string[] =>
    env.up.requests.filter((r) => r.url.split('?')[0] === `/${path}`).map((r) => r.url);

  async function expectOneUpstream(path: string, spellings: string[]): Promise<string[]> {
    const before = env.count(path);
    const bodies: string[] = [];
    const results: string[] = [];
    for (const q of spellings) {
      const g = await get(env.base, `/${path}${q}`);
      expect(g.status, `${path}${q}: ${g.text.slice(0, 200)}`).toBe(200);
      bodies.push(withoutStamps(g.text)); // hits re-stamp server_timestamp
      results.push(g.header('x-cache') ?? '');
    }
    expect(env.count(path), `upstream requests for ${spellings.join(' | ')}`).toBe(before + 1);
    expect(results[0]).toBe('MISS');
    expect(
      results.slice(1).every((r) => r === 'HIT'),
      `x-cache: ${results.join(',')}`,
    ).toBe(true);
    expect(new Set(bodies).size).toBe(1);
    return upstreamUrls(path).slice(before);
  }

  it(
    'parameter order, explicit defaults, encoding, ' + 'leading zeros and unknown params: one upstream request',
    async () => {
      const urls = await expectOneUpstream('tx/list', [
        '',
        '?page=1&page_size=20',
        '?page_size=20&page=1',
        '?page=1',
        '?page_size=20',
        `?${pct('page')}=${pct('1')}&page_size=%32%30`,
        '?page=01&page_size=020',
        '?utm_source=newsletter&page=1&fbclid=abc',
        '?&page=1&&',
        '?Page=7', // names are case-sensitive: `Page` is unknown, hence dropped
      ]);
      expect(urls).toEqual(['/tx/list?page=1&page_size=20']);
    },
  );

  it('unknown parameters are not forwarded', async () => {
    const urls = await expectOneUpstream('contracts', [
      '?page=3&secret=1&callback=x&page_size=5',
      '?page_size=5&page=3',
    ]);
    expect(urls).toHaveLength(1);
    const q = new URLSearchParams(urls[0]!.split('?')[1] ?? '');
    expect([...q.keys()].sort()).toEqual(['page', 'page_size']);
    expect(q.get('page')).toBe('3');
    expect(q.get('page_size')).toBe('5');
  });

  it('days defaults: tx/count/history 15, address/count/history 30', async () => {
    await expectOneUpstream('tx/count/history', ['', '?days=15', '?days=015']);
    await expectOneUpstream('address/count/history', ['?days=30', '']);
  });

  it('is_nrc20 true/1/TRUE share a key; false/0 another; absent a third', async () => {
    const t = await expectOneUpstream('tx/listByAddress', [
      `?address=${ADDR}&is_nrc20=true`,
      `?is_nrc20=1&address=${ADDR}`,
      `?address=${ADDR}&is_nrc20=TRUE`,
    ]);
    expect(t[0]).toContain('is_nrc20=true');
    const f = await expectOneUpstream('tx/listByAddress', [
      `?address=${ADDR}&is_nrc20=0`,
      `?address=${ADDR}&is_nrc20=false`,
    ]);
    expect(f[0]).toContain('is_nrc20=false');
    const none = await expectOneUpstream('tx/listByAddress', [
      `?address=${ADDR}`,
      `?address=${ADDR}&page=1&page_size=20`,
    ]);
    expect(none[0]).not.toContain('is_nrc20');
  });

  it('hash case and percent-encoded values share a key', async () => {
    const urls = await expectOneUpstream('tx/detail', [
      `?hash=${HASH}`,
      `?hash=${HASH.toUpperCase()}`,
      `?hash=${pct(HASH)}`,
    ]);
    expect(urls[0]).toBe(`/tx/detail?hash=${HASH}`);
    await expectOneUpstream('address/info', [`?address=${ADDR}`, `?address=${pct(ADDR)}`, `?x=1&address=${ADDR}`]);
  });

  it('token/tx/list: parameter order does not matter', async () => {
    await expectOneUpstream('token/tx/list', [
      '?token=NAX&page=1&page_size=2',
      '?page_size=2&token=NAX&page=1',
      '?page=1&page_size=2&token=NAX&foo=bar',
    ]);
  });

  it('distinct values make distinct upstream requests', async () => {
    const before = env.count('block/list');
    const seen = new Set<string>();
    for (const q of ['?page=1', '?page=2', '?page=2&page_size=21', '?page_size=100']) {
      const g = await get(env.base, `/block/list${q}`);
      expect(g.status).toBe(200);
      seen.add(g.header('x-cache') ?? '');
    }
    expect(env.count('block/list')).toBe(before + 4);
    expect([...seen]).toEqual(['MISS']);
    expect(upstreamUrls('block/list').slice(before)).toEqual([
      '/block/list?page=1&page_size=20',
      '/block/list?page=2&page_size=20',
      '/block/list?page=2&page_size=21',
      '/block/list?page=1&page_size=100',
    ]);
    // Different endpoints never share a key even with equal queries.
    const a = await get(env.base, `/tx/list/pending?page=9`);
    const b = await get(env.base, `/holders?page=9`);
    expect(a.text).not.toBe(b.text);
    expect(a.text).toContain('tx/list/pending');
    expect(b.text).toBe(b.text.replace('tx/list/pending', ''));
  });
});
