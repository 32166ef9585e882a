/**
 * Page metrics on the shared registry (requests by cache result, parts by
 * cache result, composition time) and access-log lines naming the page and
 * its part results.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { testConfig } from '../helpers/proxy.js';
import { get, metric, settableClock } from '../helpers/proxy-kit.js';
import { promtoolAvailable, runPromtool } from '../helpers/prometheus.js';
import { untilEmitted, untilHead } from '../helpers/until.js';

let sim: SimulatorHandle;
let proxy: ProxyHandle;
const lines: Array<Record<string, unknown>> = [];
// Told after each chunk of log lines is taken in.
const logged = new EventEmitter();

beforeAll(async () => {
  sim = await startSimulator({ seed: 1, blockIntervalMs: 0 });
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      logged.emit('line');
      cb();
    },
  });
  proxy = await startProxy(testConfig([sim.url], { logLevel: 'info', accessLog: 'all' }), {
    logger: pino({ level: 'info' }, sink),
    clock: settableClock().now,
  }); // nothing expires during the test
  await untilHead(proxy.tracker, (h) => h !== null, 'first probe', 5000);
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

describe('page metrics and access log', () => {
  it('counts page requests by cache result and parts by cache result; times compositions', async () => {
    await get(proxy.url, '/pages/home');
    await get(proxy.url, '/pages/home');
    await get(proxy.url, '/pages/block?h=abc');
    expect(await metric(proxy.url, 'page_requests_total', { page: 'home', cache: 'MISS', status_class: '2xx' })).toBe(
      1,
    );
    expect(await metric(proxy.url, 'page_requests_total', { page: 'home', cache: 'HIT', status_class: '2xx' })).toBe(1);
    expect(await metric(proxy.url, 'page_requests_total', { page: 'block', cache: 'ERROR', status_class: '4xx' })).toBe(
      1,
    );
    expect(await metric(proxy.url, 'page_parts_total', { page: 'home', cache: 'MISS' })).toBe(8);
    expect(await metric(proxy.url, 'page_composition_seconds_count', { page: 'home' })).toBe(1);
  });

  it('access-log lines name the page and each part’s result', async () => {
    lines.length = 0;
    await get(proxy.url, '/pages/tx?hash=' + 'f'.repeat(64));
    await untilEmitted(logged, 'line', () => lines.some((l) => l['msg'] === 'page'), 'page log line');
    const line = lines.find((l) => l['msg'] === 'page')!;
    expect(line).toMatchObject({ page: 'tx', status: 404, cache: 'ERROR', err: 'required part tx: not found' });
    lines.length = 0;
    await get(proxy.url, '/pages/home?page_size=2');
    await untilEmitted(logged, 'line', () => lines.some((l) => l['msg'] === 'page'), 'page log line');
    expect(lines.find((l) => l['msg'] === 'page')).toMatchObject({
      page: 'home',
      cache: 'MISS',
      parts: 'head:HIT,blocks:MISS,txs:MISS,pending:MISS,today:HIT,history:HIT,summary:HIT,nax:HIT',
    });
  });

  it('a batch gets one access-log line with each item’s status and cache result', async () => {
    lines.length = 0;
    await get(proxy.url, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: ['block/max', 'tx/list?page=x'] }),
    });
    await untilEmitted(logged, 'line', () => lines.some((l) => l['msg'] === 'batch'), 'batch log line');
    expect(lines.find((l) => l['msg'] === 'batch')).toMatchObject({ batch: 2, items: '200:HIT,400:ERROR' });
  });

  it.runIf(promtoolAvailable())('promtool accepts the exposition with the page metrics', async () => {
    const g = await get(proxy.url, '/metrics');
    expect(g.text).toContain('chainproxy_page_parts_total');
    const r = runPromtool(['check', 'metrics'], g.text);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
