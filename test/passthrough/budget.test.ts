/**
 * Passthrough misses are charged to the client's miss budget like API misses
 * (hits are not).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { passConfig, raw, startPassEnv, type PassEnv } from './kit.js';

let backend: FakeUpstream;
let env: PassEnv;

beforeAll(async () => {
  backend = await startFakeUpstream((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"url":${JSON.stringify(req.url)}}`);
  });
  const routes = [
    { prefix: '/explorer', target: backend.url },
    { prefix: '/open', target: backend.url },
  ];
  env = await startPassEnv(routes, {
    passthrough: passConfig(routes, { cache: { '/explorer': { kind: 'ttl', ms: 60_000 } } }),
    rateLimit: { enabled: true, max: 1000, windowMs: 60_000 },
    missBudget: 2,
  });
});
afterAll(async () => {
  await env?.close();
  await backend?.close();
});

describe('passthrough and the miss budget', () => {
  it('each miss a client leads is charged, hits are free; past the budget: 429, no backend request', async () => {
    for (const path of ['/explorer/a', '/explorer/b']) expect((await raw(env.proxy.url, path)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await raw(env.proxy.url, '/explorer/a')).headers['x-cache']).toBe('HIT');
    const before = backend.requests.length;
    const refused = await raw(env.proxy.url, '/explorer/c');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(backend.requests.length).toBe(before);
  });
});
