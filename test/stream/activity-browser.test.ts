/**
 * A real browser watches two addresses on /stream/activity with EventSource,
 * from a page of another origin: a block that names one of them arrives as
 * one event (the one it names is in its transactions), blocks that name
 * neither send nothing; after the proxy drops every connection, a block
 * published while the page is away arrives on the resumed connection (the
 * browser's own Last-Event-ID), no gap, no duplicate.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LEAST_WAIT_MS } from '../helpers/until.js';
import type { Browser } from 'playwright-core';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium, servePage, type PageSite } from '../helpers/chromium.js';
import { startTestProxy, testConfig } from '../helpers/proxy.js';
import { untilHub } from './kit.js';
import { onlyAt, readAndPublish, SEED, untouched } from './activity-kit.js';

const describe = describeChromium();

const PAGE = (url: string): string => `<!doctype html>
<html><head><meta charset="utf-8"><title>chainproxy activity</title>
<style>body{font:14px system-ui,sans-serif;margin:24px}li{font-family:monospace}</style></head>
<body><h1>Activity</h1><p id="state">connecting</p><ol id="events"></ol>
<script>
  window.seen = []; window.opens = 0;
  const es = new EventSource(${JSON.stringify(url)});
  es.onopen = () => { window.opens++; document.getElementById('state').textContent = 'open (' + window.opens + ')'; };
  es.onerror = () => { document.getElementById('state').textContent = 'reconnecting'; };
  es.onmessage = (e) => {
    const d = JSON.parse(e.data);
    const txs = d.txs.map((t) => t.address_from + ' ' + t.address_to);
    window.seen.push({ id: e.lastEventId, height: d.height, txs, opens: window.opens });
    const li = document.createElement('li');
    li.textContent = '#' + d.height + '  ' + d.block_hash.slice(0, 12) + '…  txs ' + d.txs.length;
    document.getElementById('events').prepend(li);
  };
</script></body></html>`;

describe('EventSource on /stream/activity in headless chromium', { timeout: 120_000 }, () => {
  let sim: SimulatorHandle;
  let proxy: ProxyHandle;
  let site: PageSite;
  let browser: Browser;
  let a = '';
  let b = '';
  let h0 = 0;

  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0, seed: SEED });
    proxy = await startTestProxy([sim.url], {
      upstream: { probeIntervalMs: 100 },
      stream: { ...testConfig([]).stream, retryMs: 200 },
    });
    h0 = sim.chain.head();
    const range = [1, 2, 3, 4].map((i) => h0 + i);
    a = onlyAt(
      h0 + 1,
      range.filter((h) => h !== h0 + 3 && h !== h0 + 4),
    );
    b = untouched(range, h0 + 700);
    site = await servePage(() => PAGE(`${proxy.url}/stream/activity?address=${a}&address=${b}`));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await proxy?.close();
    await sim?.close();
  });

  it('gets the block that names a watched address, and what it missed while away', async () => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    type Seen = { id: string; height: number; txs: string[]; opens: number };
    const seen = (): Promise<Seen[]> => page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen);
    const opens = (): Promise<number> => page.evaluate(() => (globalThis as unknown as { opens: number }).opens);
    await page.waitForFunction(() => (globalThis as unknown as { opens: number }).opens === 1, undefined, {
      timeout: LEAST_WAIT_MS,
    });
    await untilHub(proxy, () => proxy.stream.activity.status().watched === 2, 'the watch');

    // h0+1 names a; h0+2 names neither (a is only at h0+1 among h0+1..h0+2, b nowhere).
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 1);
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 2);
    await page.waitForFunction(() => (globalThis as unknown as { seen: unknown[] }).seen.length === 1, undefined, {
      timeout: LEAST_WAIT_MS,
    });

    // The proxy drops every connection; a block naming a is published before the page is back
    // (its tx/list read first: dropping connections would cut this test's own keep-alive fetch).
    sim.chain.advance();
    await (await fetch(`${proxy.url}/tx/list?block_height=${h0 + 3}&page=1&page_size=100`)).arrayBuffer();
    proxy.app.server.closeAllConnections();
    proxy.stream.activity.touched.publishBlock({
      height: h0 + 3,
      blockHash: 'c'.repeat(64),
      addresses: [a],
      contracts: [],
      deployed: [],
      day: null,
      tokens: [],
      complete: true,
    });
    await proxy.stream.activity.feed.settled();
    await page.waitForFunction(() => (globalThis as unknown as { opens: number }).opens >= 2, undefined, {
      timeout: LEAST_WAIT_MS,
    });
    await untilHub(proxy, () => proxy.stream.activity.status().streams === 1, 'the resumed connection');
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 4, {
      height: h0 + 4,
      blockHash: 'd'.repeat(64),
      addresses: [b],
      contracts: [],
      deployed: [],
      day: null,
      tokens: [],
      complete: true,
    });
    await page.waitForFunction(() => (globalThis as unknown as { seen: unknown[] }).seen.length >= 3, undefined, {
      timeout: LEAST_WAIT_MS,
    });
    await page.screenshot({ path: artifactPath('activity-stream.png') });

    const s = await seen();
    expect(s.map((e) => e.height)).toEqual([h0 + 1, h0 + 3, h0 + 4]);
    expect(s.map((e) => e.id)).toEqual([h0 + 1, h0 + 3, h0 + 4].map(String));
    expect(s[0]!.txs.length).toBeGreaterThan(0);
    expect(s[0]!.txs.every((t) => t.includes(a))).toBe(true);
    // h0+3 came on the resumed connection (the browser sent Last-Event-ID h0+1).
    expect(s[1]!.opens).toBeGreaterThanOrEqual(2);
    expect(await opens()).toBeGreaterThanOrEqual(2);
    await page.close();
  });
});
