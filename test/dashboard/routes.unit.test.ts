/** The status page's gate, its refusal envelope and its self-containment. */
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { OperatorAccess } from '../../src/http/admin-gate.js';
import { registerFallbacks } from '../../src/http/fallbacks.js';
import { EnvelopeWriter, installEnvelopeWriter } from '../../src/http/envelope-writer.js';
import { PathRegistry } from '../../src/catalogue/paths.js';
import { DASHBOARD_HTML } from '../../src/dashboard/page.js';
import { DASHBOARD_PATHS, registerDashboard } from '../../src/dashboard/routes.js';
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';

const loopbackOperators = new OperatorAccess({ adminAllow: ['loopback'], purgeAllow: [], adminHosts: [] });

describe('operator gate', () => {
  it('answers /dashboard and its data with the unknown-path 404 envelope to a client outside ADMIN_ALLOW', async () => {
    const app = Fastify();
    installEnvelopeWriter(app, new EnvelopeWriter({ upstreamIsSimulator: false }));
    const access = new OperatorAccess({ adminAllow: ['10.9.9.9'], purgeAllow: [], adminHosts: [] });
    registerDashboard(app, { adminGate: access.admin, registry: new Registry() });
    registerFallbacks(app, new PathRegistry([], []), access);
    for (const url of DASHBOARD_PATHS) {
      const r = await app.inject({ url, remoteAddress: '203.0.113.9' });
      expect(r.statusCode, url).toBe(404);
      expect(r.json()).toEqual({ code: 4040, msg: `no such endpoint: ${url}`, data: null });
      const operator = await app.inject({ url, remoteAddress: '10.9.9.9' });
      expect(operator.statusCode, url).toBe(200);
    }
    await app.close();
  });

  it('serves the page and counters read from the registry when the gate says yes', async () => {
    const prom = createPrometheusMetrics({
      tiers: () => [],
      upstreams: () => [],
      chain: { bestHead: () => null, finalHeight: () => null },
      redisHealthy: () => null,
    });
    prom.metrics.request('tx/list', 200, 'HIT', 0.001);
    prom.metrics.request('tx/list', 200, 'MISS', 0.01);
    prom.metrics.request('tx/list', 502, 'ERROR', 0.01);
    prom.metrics.upstreamRequest('u0', 'tx/list', 'timeout', 1);
    prom.metrics.rateLimited();
    const app = Fastify();
    registerDashboard(app, { adminGate: loopbackOperators.admin, registry: prom.registry });
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
    // The SVG namespace is a name, not a resource: the one URL allowed.
    expect(DASHBOARD_HTML.replaceAll("'http://www.w3.org/2000/svg'", '')).not.toMatch(/https?:\/\//);
    expect(DASHBOARD_HTML).not.toMatch(/@import|url\(/);
    expect(DASHBOARD_HTML).not.toContain('innerHTML');
  });
});
