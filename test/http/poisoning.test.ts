/**
 * Cache poisoning attempts. A first (cold, hence stored) request carrying a
 * hostile Host / X-Forwarded-Host / X-Forwarded-Proto / Forwarded header,
 * unkeyed or duplicated parameters, cookies or credentials must not change
 * what a clean client then gets: same body, links still on PUBLIC_BASE_URL.
 * The upstream never sees client credentials, forwarding headers or the
 * client's Host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedBody, fixture, get, PUBLIC, startEnv, withoutStamps, type Env } from '../helpers/proxy-kit.js';

const PATH = 'tx/list';

describe('poisoning attempts leave other clients unaffected', () => {
  let env: Env;
  let page = 10;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  /** A fresh key per attempt: the poisoning request is always the one that fills the cache. */
  const nextUrl = () => `/${PATH}?page=${page++}`;

  const attempts: Array<[label: string, headers: Record<string, string>]> = [
    ['Host', { host: 'evil.example' }],
    ['X-Forwarded-Host', { 'x-forwarded-host': 'evil.example' }],
    ['X-Forwarded-Proto', { 'x-forwarded-proto': 'http' }],
    [
      'X-Forwarded-Host + Proto + Port + Prefix',
      {
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'http',
        'x-forwarded-port': '8443',
        'x-forwarded-prefix': '/evil',
      },
    ],
    ['Forwarded', { forwarded: 'for=1.2.3.4;host=evil.example;proto=http' }],
    ['X-Original-URL / X-Rewrite-URL', { 'x-original-url': '/block/max', 'x-rewrite-url': '/block/max' }],
    ['X-Forwarded-For', { 'x-forwarded-for': '6.6.6.6' }],
    ['Cookie and Authorization', { cookie: 'session=s3cr3t', authorization: 'Bearer t0k3n' }],
    ['X-HTTP-Method-Override', { 'x-http-method-override': 'POST' }],
    ['Accept-Encoding gzip (variant, not content)', { 'accept-encoding': 'gzip' }],
    ['If-None-Match *', { 'if-none-match': '*' }],
  ];

  it.each(attempts)('%s', async (_label, headers) => {
    const url = nextUrl();
    const poison = await get(env.base, url, { headers });
    expect([200, 304]).toContain(poison.status);
    expect(poison.header('x-cache')).toBe('MISS');
    if (poison.status === 200 && poison.header('content-encoding') === undefined) {
      expect(withoutStamps(poison.text)).toBe(withoutStamps(expectedBody(fixture(PATH).body)));
    }
    const clean = await get(env.base, url);
    expect(clean.status).toBe(200);
    expect(clean.header('x-cache')).toBe('HIT');
    expect(clean.header('content-encoding')).toBeUndefined();
    expect(clean.text).toContain(`"next":"${PUBLIC}/tx/list?page=2&page_size=2"`);
    expect(clean.text).not.toContain('evil');
    expect(clean.text).not.toContain('http://');
    expect(withoutStamps(clean.text)).toBe(withoutStamps(expectedBody(fixture(PATH).body)));
    expect(clean.header('vary')).toMatch(/accept-encoding/i);
    expect(clean.header('set-cookie')).toBeUndefined();
  });

  it('the upstream never saw client credentials, forwarding headers or the client Host', () => {
    const upstreamHost = new URL(env.up.url).host;
    const forbidden = [
      'cookie',
      'authorization',
      'x-forwarded-host',
      'x-forwarded-proto',
      'x-forwarded-for',
      'x-forwarded-port',
      'x-forwarded-prefix',
      'forwarded',
      'x-original-url',
      'x-rewrite-url',
      'x-http-method-override',
      'if-none-match',
    ];
    const proxied = env.up.requests.filter((r) => r.url.startsWith(`/${PATH}`));
    expect(proxied.length).toBe(attempts.length);
    for (const r of proxied) {
      expect(r.method).toBe('GET');
      expect(r.headers.host).toBe(upstreamHost);
      for (const h of forbidden) expect(r.headers[h], `${h} sent upstream`).toBeUndefined();
    }
  });

  it('unkeyed parameters neither change the stored answer nor reach the upstream', async () => {
    const url = nextUrl();
    const poison = await get(env.base, `${url}&callback=alert(1)&next=http://evil.example/&utm_source=x`);
    expect(poison.status).toBe(200);
    expect(poison.header('x-cache')).toBe('MISS');
    const clean = await get(env.base, url);
    expect(clean.header('x-cache')).toBe('HIT');
    expect(clean.text).not.toContain('evil');
    expect(clean.text).not.toContain('alert');
    const last = env.up.requests.filter((r) => r.url.startsWith(`/${PATH}`)).at(-1)!;
    expect(last.url).toBe(`${url}&page_size=20`);
  });

  it('duplicated parameters are refused and do not fill the cache', async () => {
    const url = nextUrl();
    const before = env.count(PATH);
    for (const q of [`${url}&page=1`, `${url}&page_size=20&page_size=100`, `${url}&%70age=1`]) {
      const dup = await get(env.base, q);
      expect(dup.status).toBe(400);
    }
    expect(env.count(PATH)).toBe(before);
    const clean = await get(env.base, url);
    expect(clean.status).toBe(200);
    expect(clean.header('x-cache')).toBe('MISS');
  });

  it('different Host headers share one entry and never reach the links', async () => {
    const url = nextUrl();
    const poison = await get(env.base, url, { headers: { host: 'evil.example:443' } });
    expect(poison.header('x-cache')).toBe('MISS');
    expect(poison.text).not.toContain('evil');
    const again = await get(env.base, url, { headers: { host: 'other.example' } });
    expect(again.header('x-cache')).toBe('HIT');
    expect(withoutStamps(again.text)).toBe(withoutStamps(poison.text));
  });
});
