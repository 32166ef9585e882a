/**
 * A real browser subscribes to the head stream with EventSource, from a page
 * of another origin (so CORS is exercised, the reconnect's Last-Event-ID
 * included), sees heads arrive as the simulator produces blocks, and resumes
 * without gap or duplicate after the proxy drops every connection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium } from '../helpers/chromium.js';
import { startTestProxy, testConfig } from '../helpers/proxy.js';

const describe = describeChromium();

const PAGE = (proxyUrl: string): string => `<!doctype html>
<html><head><meta charset="utf-8"><title>chainproxy heads</title>
<style>body{font:14px system-ui,sans-serif;margin:24px}li{font-family:monospace}</style></head>
<body><h1>New blocks</h1><p id="state">connecting</p><ol id="heads"></ol>
<script>
  window.seen = []; window.opens = 0;
  const es = new EventSource(${JSON.stringify(proxyUrl)} + '/stream/heads');
  es.onopen = () => { window.opens++; document.getElementById('state').textContent = 'open (' + window.opens + ')'; };
  es.onerror = () => { document.getElementById('state').textContent = 'reconnecting'; };
  es.onmessage = (e) => {
    const d = JSON.parse(e.data);
    window.seen.push({ id: e.lastEventId, height: d.height, block: d.block && d.block.height, opens: window.opens });
    const li = document.createElement('li');
    li.textContent = '#' + d.height + '  ' + new Date(d.block.timestamp * 1000).toISOString() + '  txs ' + d.block.tx_count + '  final ' + d.final_height;
    document.getElementById('heads').prepend(li);
  };
</script></body></html>`;

describe('EventSource in headless chromium', () => {
  let sim: SimulatorHandle;
  let proxy: ProxyHandle;
  let site: Server;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 250, seed: 4 });
    proxy = await startTestProxy([sim.url], {
      upstream: { probeIntervalMs: 100 },
      stream: { ...testConfig([]).stream, retryMs: 200 },
    });
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(proxy.url)));
    await new Promise<void>((ok) => site.listen(0, '127.0.0.1', ok));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => site?.close(ok));
    await proxy?.close();
    await sim?.close();
  });

  it('sees heads arrive, and resumes after the proxy drops the connection', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
    type Seen = { id: string; height: number; block: number | null; opens: number };
    const seen = (): Promise<Seen[]> => page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen);

    await page.waitForFunction(() => (globalThis as unknown as { seen: unknown[] }).seen.length >= 4, undefined, { timeout: 20_000 });
    // The proxy drops every connection (as a restart or a load balancer would).
    proxy.app.server.closeAllConnections();
    await page.waitForFunction(
      () => {
        const s = (globalThis as unknown as { seen: { opens: number }[] }).seen;
        return s.filter((e) => e.opens >= 2).length >= 4;
      },
      undefined,
      { timeout: 20_000 },
    );
    await page.screenshot({ path: artifactPath('stream-heads.png'), fullPage: true });

    const events = await seen();
    const heights = events.map((e) => e.height);
    // In order, one per block: no gap and no duplicate across the reconnect.
    expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => heights[0]! + i));
    for (const e of events) {
      expect(e.id).toBe(String(e.height));
      expect(e.block).toBe(e.height);
    }
    expect(await page.evaluate(() => (globalThis as unknown as { opens: number }).opens)).toBe(2);
    await page.close();
  });
});
