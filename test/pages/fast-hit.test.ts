/**
 * Composed pages on the pre-router fast path (src/http/fast-hit.ts): a
 * remembered page URL is answered from the memory tier with the entries'
 * delivery (header block, ETag, 304), counted by the page layer, and only
 * while the page is a fresh HIT; a moved head or a page kept with a stale
 * part goes on to the page route.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EnvelopeWriter } from '../../src/http/envelope-writer.js';
import { ClientAddress } from '../../src/http/client-address.js';
import { Epilogue } from '../../src/http/epilogue.js';
import { FastHits } from '../../src/http/fast-hit.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { settableClock, withoutStamps } from '../helpers/proxy-kit.js';
import { get, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server === undefined ? r(undefined) : server.close(r)));
  await env?.close();
  env = undefined;
  server = undefined;
});

/** A server answering only what the fast path answers (599 otherwise), and what the page layer counted. */
async function fastFront(e: PagesEnv, clock: () => number): Promise<{ base: string; counted: number[] }> {
  const { proxy } = e;
  const metrics = createPrometheusMetrics({
    tiers: () => [],
    upstreams: () => [],
    chain: proxy.tracker,
    redisHealthy: () => null,
  }).metrics;
  const epilogue = new Epilogue({
    address: new ClientAddress([]),
    accessLog: 'off',
    logger: pino({ enabled: false }),
    chain: proxy.tracker,
    writer: new EnvelopeWriter({ upstreamIsSimulator: false }),
    gate: null,
    metrics,
    pages: { request: () => {}, composed: () => {} },
  });
  const fast = new FastHits({ resolver: proxy.resolver, clock, epilogue });
  const page = proxy.pages.page('home')!;
  const counted: number[] = [];
  const family = { count: (_page: string, status: number) => void counted.push(status), msg: 'page', field: 'page' };
  fast.remember('/pages/home', page.def, proxy.pages.request(page, ''), {
    hit: (key, now) => proxy.pages.freshHit(key, now),
    exit: { family, label: 'home' },
  });
  const routed = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(599);
    res.end();
  };
  server = createServer((req, res) => {
    if (!fast.handle(req, res, routed)) routed(req, res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counted };
}

describe('pages on the fast path', () => {
  it('answers a fresh page as the page route does, counted by the page layer', async () => {
    const clock = settableClock();
    env = await startPagesEnv({}, clock.now);
    const front = await fastFront(env, clock.now);
    expect((await get(front.base, '/pages/home')).status).toBe(599); // not composed yet
    const routed = await get(env.base, '/pages/home');
    const fast = await get(front.base, '/pages/home');
    expect(fast.status).toBe(200);
    expect(fast.header('x-cache')).toBe('HIT');
    expect(fast.header('etag')).toBe(routed.header('etag'));
    expect(fast.header('cache-control')).toBe(routed.header('cache-control'));
    expect(withoutStamps(fast.text)).toBe(withoutStamps(routed.text));
    expect(
      (await get(front.base, '/pages/home', { headers: { 'if-none-match': routed.header('etag')! } })).status,
    ).toBe(304);
    expect(front.counted).toEqual([200, 304]);
    // A new head: the page is no longer fresh, the page route recomposes it.
    env.sim.chain.advance(1);
    env.proxy.tracker.observeHead(env.sim.chain.head());
    expect((await get(front.base, '/pages/home')).status).toBe(599);
  });

  it('a page kept with a stale part goes on to the page route (STALE is not a fast hit)', async () => {
    const clock = settableClock();
    env = await startPagesEnv({}, clock.now);
    const front = await fastFront(env, clock.now);
    await get(env.base, '/pages/home');
    clock.advance(61_000); // past nax/summary's 60 s, inside its swr window
    env.faults.set('nax/summary', { latencyMs: 300 });
    expect((await get(env.base, '/pages/home')).header('x-cache')).toBe('STALE');
    expect((await get(env.base, '/pages/home')).header('x-cache')).toBe('STALE');
    expect((await get(front.base, '/pages/home')).status).toBe(599);
    expect(front.counted).toEqual([]);
  });
});
