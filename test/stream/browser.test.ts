/**
 * A real browser subscribes to the head stream with EventSource, from a page
 * of another origin (so CORS is exercised, the reconnect's Last-Event-ID
 * included), sees heads arrive as the simulator produces blocks, and resumes
 * without gap or duplicate after the proxy drops every connection. Then a
 * page is told of a rebase (`rebase` event) and goes on from the real head,
 * and a page resuming from before the history gets a `gap` event and every
 * kept event, paced.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LEAST_WAIT_MS } from '../helpers/until.js';
import type { Browser } from 'playwright-core';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium, servePage, type PageSite } from '../helpers/chromium.js';
import { startTestProxy, testConfig } from '../helpers/proxy.js';
import { startRelay, type Relay } from './relay.js';
import { untilFeed } from './kit.js';

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
    const at = new Date(d.block.timestamp * 1000).toISOString();
    li.textContent = '#' + d.height + '  ' + at + '  txs ' + d.block.tx_count + '  final ' + d.final_height;
    document.getElementById('heads').prepend(li);
  };
</script></body></html>`;

describe('EventSource in headless chromium', { timeout: 120_000 }, () => {
  let sim: SimulatorHandle;
  let proxy: ProxyHandle;
  let site: PageSite;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 250, seed: 4 });
    proxy = await startTestProxy([sim.url], {
      upstream: { probeIntervalMs: 100 },
      stream: { ...testConfig([]).stream, retryMs: 200 },
    });
    site = await servePage(() => PAGE(proxy.url));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await proxy?.close();
    await sim?.close();
  });

  it('sees heads arrive, and resumes after the proxy drops the connection', async () => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    type Seen = { id: string; height: number; block: number | null; opens: number };
    const seen = (): Promise<Seen[]> => page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen);

    await page.waitForFunction(() => (globalThis as unknown as { seen: unknown[] }).seen.length >= 4, undefined, {
      timeout: LEAST_WAIT_MS,
    });
    // The proxy drops every connection (as a restart or a load balancer would).
    proxy.app.server.closeAllConnections();
    await page.waitForFunction(
      () => {
        const s = (globalThis as unknown as { seen: { opens: number }[] }).seen;
        return s.filter((e) => e.opens >= 2).length >= 4;
      },
      undefined,
      { timeout: LEAST_WAIT_MS },
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

/** A page that records every event type; `query` is appended to the stream URL (a resume point). */
const RECORDING_PAGE = (proxyUrl: string, query: string): string => `<!doctype html>
<html><head><meta charset="utf-8"><title>chainproxy heads</title></head><body><ol id="log"></ol>
<script>
  window.log = [];
  const es = new EventSource(${JSON.stringify(proxyUrl)} + '/stream/heads' + ${JSON.stringify(query)});
  const record = (e) => {
    window.log.push({ type: e.type, id: e.lastEventId, data: JSON.parse(e.data) });
    const li = document.createElement('li');
    li.textContent = e.type + ' ' + e.lastEventId;
    document.getElementById('log').prepend(li);
  };
  es.onmessage = record;
  es.addEventListener('rebase', record);
  es.addEventListener('gap', record);
</script></body></html>`;

describe('EventSource in headless chromium: rebases and long resumes', { timeout: 120_000 }, () => {
  type Logged = { type: string; id: string; data: { height?: number; from?: number; to?: number; block?: unknown } };
  let sim: SimulatorHandle;
  let relays: Relay[];
  let proxy: ProxyHandle;
  let site: PageSite;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0, seed: 6 });
    relays = await Promise.all([startRelay(sim.url), startRelay(sim.url)]);
    proxy = await startTestProxy(
      relays.map((r) => r.url),
      {
        upstream: { probeIntervalMs: 100 },
        limits: { maxPageSize: 100 },
        stream: { ...testConfig([]).stream, retryMs: 200, history: 300, maxBufferBytes: 16 * 1024 },
      },
    );
    site = await servePage((url) => RECORDING_PAGE(proxy.url, url.searchParams.get('q') ?? ''));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    for (const r of relays ?? []) r.release();
    await proxy?.close();
    await Promise.all((relays ?? []).map((r) => r.close()));
    await sim?.close();
  });

  const open = async (
    query: string,
  ): Promise<{ log: () => Promise<Logged[]>; until: (n: number, what: string) => Promise<void> }> => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/?q=${encodeURIComponent(query)}`);
    const log = (): Promise<Logged[]> => page.evaluate(() => (globalThis as unknown as { log: Logged[] }).log);
    const until = async (n: number, what: string): Promise<void> => {
      try {
        // Hundreds of events through a browser starved of CPU by the rest of the suite: a deadline that only
        // turns a hang into a failure (each wait may take seconds per hundred events there).
        await page.waitForFunction((k) => (globalThis as unknown as { log: unknown[] }).log.length >= k, n, {
          timeout: 3 * LEAST_WAIT_MS,
        });
      } catch (err) {
        // What the page did get: how many events, and the last few (a gap, a rebase, a stall).
        const got = await log().catch(() => [] as Logged[]);
        const tail = JSON.stringify(got.slice(-3));
        throw new Error(`waiting for ${what}: ${String(err)}; the page logged ${got.length} events, the last ${tail}`);
      }
    };
    return { log, until };
  };

  /**
   * `n` more heads, 100 per step, each made into events and read by the page (which has logged `logged` events)
   * before the next: a step sent on the feed's event alone queues the next 100 behind it, past the slow-reader
   * bound (STREAM_MAX_BUFFER_BYTES), and the page is disconnected, which is not what this test is about.
   */
  async function heads(n: number, page: { until: (k: number, what: string) => Promise<void> }, logged: number) {
    for (let left = n, seen = logged; left > 0; left -= 100) {
      const step = Math.min(100, left);
      sim.chain.advance(step);
      const target = sim.chain.head();
      await untilFeed(proxy, (e) => e === target, `head ${target}`);
      seen += step;
      await page.until(seen, `head ${target} on the page`);
    }
  }

  it(
    'is told of a rebase, goes on from the real head, ' +
      'and a page resuming from before the history gets a gap then every kept event',
    async () => {
      const a = await open('');
      await a.until(1, 'the first head');
      const start = sim.chain.head();
      await heads(400, a, 1);
      await a.until(401, 'every head');
      expect((await a.log()).map((e) => Number(e.id))).toEqual(Array.from({ length: 401 }, (_, i) => start + i));

      const real = sim.chain.head();
      for (const r of relays) r.lie(real + 5000);
      // The jump: a gap event for the heights skipped, then the newest 100.
      await a.until(502, 'the phantom heads');
      expect((await a.log())[401]).toMatchObject({ type: 'gap', data: { from: real + 1, to: real + 4900 } });
      for (const r of relays) r.lie(null);
      await a.until(503, 'the rebase');
      const told = (await a.log())[502]!;
      expect(told).toMatchObject({ type: 'rebase', id: String(real), data: { height: real, from: real + 5000 } });
      sim.chain.advance(1);
      await a.until(504, 'the next real head');
      expect((await a.log())[503]).toMatchObject({ type: 'message', id: String(real + 1), data: { height: real + 1 } });

      // A page away since `start`: older than the 300 kept events.
      const b = await open(`?lastEventId=${start}`);
      await b.until(301, 'the gap and the kept events');
      const got = await b.log();
      const kept = got.slice(1).map((e) => Number(e.id));
      expect(got[0]).toMatchObject({ type: 'gap', data: { from: start + 1, to: kept[0]! - 1 } });
      expect(kept).toEqual(Array.from({ length: 300 }, (_, i) => real + 1 - 299 + i));
      expect(
        got
          .slice(1)
          .every((e) => e.type === 'message' && (e.data.block as { height: number }).height === e.data.height),
      ).toBe(true);
    },
    // Seven waits of up to 3 * LEAST_WAIT_MS each on a loaded machine.
    10 * LEAST_WAIT_MS,
  );
});
