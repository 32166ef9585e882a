/**
 * The Nebulas explorer front end's request pattern in headless chromium, from
 * a page of another origin, through passthrough with the recipe's settings
 * (PASSTHROUGH_CACHE=/explorer=head, PASSTHROUGH_IGNORE_PARAMS=timestamp) in
 * front of a stand-in of its backend that sends no CORS and no Cache-Control.
 * As the app does: XMLHttpRequest GETs with `timestamp=<ms>` appended (no
 * request header, so no preflight), plus one request that preflights. Every
 * answer is readable by the page, a second visit is all HITs (X-Cache read by
 * the page), and pages polling as the dashboard does cost the backend one
 * request per key per block.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium, servePage, type PageSite } from '../helpers/chromium.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilHead } from '../helpers/until.js';
import {
  DASHBOARD_POLL,
  EXPLORER_GETS,
  startExplorerBackend,
  startExplorerProxy,
  type ExplorerBackend,
} from './explorer-kit.js';

const describe = describeChromium();

/** A GET the app does not make as such: a JSON Content-Type makes chromium preflight it. */
const PREFLIGHTED = '/explorer/block/list?page=2&page_size=25';
/** An API request of the same screen (the dashboard's count of the day). */
const API_GET = '/tx/count/today';
const POLL_MS = 150;

const PAGE = (proxyUrl: string): string => `<!doctype html>
<html><head><meta charset="utf-8"><title>explorer requests</title></head><body><pre id="log"></pre>
<script>
  const PROXY = ${JSON.stringify(proxyUrl)};
  window.polls = [];
  // The app's helper: arguments in the query, then timestamp=Date.now() (its slice(0, -1),
  // meant for a trailing '&', cuts the last digit), no request header on a GET.
  function ajax(path, preflight) {
    return new Promise((resolve) => {
      let url = PROXY + path + (path.indexOf('?') === -1 ? '?' : '&') + 'timestamp=' + Date.now();
      url = url.slice(0, -1);
      const xhr = new XMLHttpRequest();
      xhr.open('GET', url);
      if (preflight) xhr.setRequestHeader('content-type', 'application/json; charset=utf-8');
      xhr.onload = () => {
        let code = null;
        try { code = JSON.parse(xhr.responseText).code; } catch (e) {}
        resolve({ path, status: xhr.status, code, xcache: xhr.getResponseHeader('X-Cache') });
      };
      xhr.onerror = () => resolve({ path, status: 0, code: null, xcache: null });
      xhr.send();
    });
  }
  window.visit = () => Promise.all([
    ...${JSON.stringify(EXPLORER_GETS)}.map((p) => ajax(p, false)),
    ajax(${JSON.stringify(PREFLIGHTED)}, true),
    ajax(${JSON.stringify(API_GET)}, false),
  ]);
  // The dashboard's short loop (every 5 s in the app).
  window.poll = () => { window.timer = setInterval(async () => {
    const got = await Promise.all(${JSON.stringify(DASHBOARD_POLL)}.map((p) => ajax(p, false)));
    window.polls.push(...got);
    document.getElementById('log').textContent = window.polls.length + ' answers';
  }, ${POLL_MS}); };
  window.stop = () => clearInterval(window.timer);
</script></body></html>`;

interface Answer {
  path: string;
  status: number;
  code: number | null;
  xcache: string | null;
}

describe('the explorer front end through passthrough, in headless chromium', { timeout: 120_000 }, () => {
  let sim: SimulatorHandle;
  let backend: ExplorerBackend;
  let proxy: ProxyHandle;
  let site: PageSite;
  let browser: Browser;
  const pages: Page[] = [];
  /** Every CORS failure and every OPTIONS the pages' chromium sent, from the DevTools protocol. */
  const corsFailures: string[] = [];
  const preflights: string[] = [];

  beforeAll(async () => {
    // Blocks only when the test says: a visit and its second visit see one head.
    sim = await startSimulator({ blockIntervalMs: 0, seed: 35 });
    backend = await startExplorerBackend();
    proxy = await startExplorerProxy(sim.url, backend.url);
    await untilHead(proxy.tracker, (h) => h === sim.chain.head(), 'the first head');
    site = await servePage(() => PAGE(proxy.url));
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const p of pages) await p.close().catch(() => {});
    await browser?.close();
    await site?.close();
    await proxy?.close();
    await backend?.close();
    await sim?.close();
  });

  async function open(): Promise<Page> {
    const page = await browser.newPage();
    pages.push(page);
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.request.method === 'OPTIONS') preflights.push(e.request.url);
    });
    cdp.on('Network.loadingFailed', (e) => {
      if (e.corsErrorStatus !== undefined) corsFailures.push(`${e.corsErrorStatus.corsError} ${e.requestId}`);
    });
    await cdp.send('Network.enable');
    await page.goto(`${site.url}/`);
    return page;
  }
  const visit = (page: Page): Promise<Answer[]> =>
    page.evaluate(() => (globalThis as unknown as { visit: () => Promise<Answer[]> }).visit());

  it('every answer is readable by the page, and a second visit is all HITs', async () => {
    const first = await visit(await open());
    expect(corsFailures).toEqual([]);
    for (const a of first) {
      expect(a.status, a.path).toBe(200);
      expect(a.code, a.path).toBe(0);
      // X-Cache is exposed to the page (CORS), on passthrough answers as on the API's.
      expect(a.xcache, a.path).toMatch(/^(MISS|HIT)$/);
    }
    // The preflight was the proxy's to answer: chromium sent it, the backend never saw one.
    expect(preflights.some((u) => u.includes('/explorer/block/list?page=2'))).toBe(true);
    expect(backend.countMethod('OPTIONS')).toBe(0);
    // One backend request per key; the cache-buster is not forwarded.
    expect(backend.requests.length).toBe(EXPLORER_GETS.length + 1);
    for (const path of [...EXPLORER_GETS, PREFLIGHTED]) expect(backend.countKey(path), path).toBe(1);

    const asked = backend.requests.length;
    const page = await open();
    const second = await visit(page);
    await page.screenshot({ path: artifactPath('explorer-passthrough.png'), fullPage: true });
    expect(corsFailures).toEqual([]);
    expect(second.map((a) => [a.path, a.status, a.xcache])).toEqual(second.map((a) => [a.path, 200, 'HIT']));
    expect(backend.requests.length).toBe(asked);
  });

  it('pages polling as the dashboard does cost the backend one request per key per block', async () => {
    const polling = [await open(), await open(), await open()];
    const before = new Map(DASHBOARD_POLL.map((p) => [p, backend.countKey(p)]));
    const answered = async (): Promise<number[]> =>
      Promise.all(polling.map((p) => p.evaluate(() => (globalThis as unknown as { polls: Answer[] }).polls.length)));
    for (const p of polling) await p.evaluate(() => (globalThis as unknown as { poll: () => void }).poll());
    const blocks = 3;
    for (let b = 0; b < blocks; b++) {
      sim.chain.advance(1);
      await untilHead(proxy.tracker, (h) => h === sim.chain.head(), `head ${sim.chain.head()}`);
      // Every page polls at least twice more at this head before the next block.
      const seen = await answered();
      const want = seen.map((n) => n + 2 * 2 * DASHBOARD_POLL.length);
      await waitFor(async () => (await answered()).every((n, i) => n >= want[i]!), undefined, 'polls at the head');
    }
    for (const p of polling) await p.evaluate(() => (globalThis as unknown as { stop: () => void }).stop());

    expect(corsFailures).toEqual([]);
    for (const path of DASHBOARD_POLL) expect(backend.countKey(path) - before.get(path)!, path).toBe(blocks);
    const polls = (
      await Promise.all(polling.map((p) => p.evaluate(() => (globalThis as unknown as { polls: Answer[] }).polls)))
    ).flat();
    expect(polls.filter((a) => a.status !== 200 || a.code !== 0)).toEqual([]);
    // Most polls were hits: a MISS only on the first poll of a key after each block.
    expect(polls.filter((a) => a.xcache === 'HIT').length).toBeGreaterThan(polls.length / 2);
    expect(backend.requests.some((r) => r.url.includes('timestamp='))).toBe(false);
  });
});
