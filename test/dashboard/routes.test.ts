/** The status page's gate, its refusal envelope and its self-containment. */
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isLoopbackOrPrivate } from '../../src/dashboard/gate.js';
import { DASHBOARD_HTML } from '../../src/dashboard/page.js';
import { registerDashboard } from '../../src/dashboard/routes.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';

describe('operator gate', () => {
  it.each([
    ['127.0.0.1', true], ['127.8.9.10', true], ['::1', true], ['::ffff:127.0.0.1', true], ['10.1.2.3', true], ['172.16.0.1', true],
    ['172.31.255.255', true], ['192.168.1.1', true], ['fd12::1', true], ['fe80::1', true],
    ['172.32.0.1', false], ['8.8.8.8', false], ['::ffff:8.8.8.8', false], ['2001:db8::1', false], ['', false], ['localhost', false],
  ])('%s private: %s', (ip, expected) => {
    expect(isLoopbackOrPrivate(ip)).toBe(expected);
  });

  it('refuses /dashboard and its data with a 403 envelope when the gate says no', async () => {
    const app = Fastify();
    registerDashboard(app, { allowed: () => false, registry: new Registry() });
    for (const url of ['/dashboard', '/dashboard/data.json']) {
      const r = await app.inject({ url });
      expect(r.statusCode, url).toBe(403);
      expect(r.json()).toEqual({ code: 4030, msg: 'forbidden: operator endpoint', data: null });
    }
    await app.close();
  });

  it('serves the page and counters read from the registry when the gate says yes', async () => {
    const prom = createPrometheusMetrics({ tiers: () => [], upstreams: () => [], chain: { bestHead: () => null, finalHeight: () => null }, redisHealthy: () => null });
    prom.metrics.request('tx/list', 200, 'HIT', 0.001);
    prom.metrics.request('tx/list', 200, 'MISS', 0.01);
    prom.metrics.request('tx/list', 502, 'ERROR', 0.01);
    prom.metrics.upstreamRequest('u0', 'tx/list', 'timeout', 1);
    prom.metrics.rateLimited();
    const app = Fastify();
    registerDashboard(app, { allowed: () => true, registry: prom.registry });
    const page = await app.inject({ url: '/dashboard' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const data = (await app.inject({ url: '/dashboard/data.json' })).json() as { data: Record<string, unknown> };
    expect(data.data).toMatchObject({
      requests: { total: 3, byCache: { HIT: 1, MISS: 1, ERROR: 1 }, byStatus: { '2xx': 2, '5xx': 1 } },
      upstreams: { u0: { timeout: 1 } },
      rateLimited: 1,
    });
    await app.close();
  });
});

describe('the page is self-contained', () => {
  it('references no external resource and needs no build step', () => {
    expect(DASHBOARD_HTML).not.toMatch(/(src|href)\s*=\s*"(?!data:)/i);
    expect(DASHBOARD_HTML).not.toMatch(/https?:\/\//);
    expect(DASHBOARD_HTML).not.toMatch(/@import|url\(/);
    expect(DASHBOARD_HTML).not.toContain('innerHTML');
  });
});
