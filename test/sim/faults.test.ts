import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/sim/index.js';
import { get, getJson, post, sim } from './util.js';

let s: SimulatorHandle;
beforeEach(async () => {
  s = await sim();
});
afterEach(() => s.close());

describe('fault injection', () => {
  it('http500: 500 with a JSON error envelope', async () => {
    await post(s.url, '/_sim/faults', { errorRate: 1, kind: 'http500' });
    const g = await get(s.url, '/block/max');
    expect(g.status).toBe(500);
    expect(JSON.parse(g.text)).toEqual({ code: 500, msg: 'internal server error', data: null });
  });

  it('http502html: 502 with an HTML page', async () => {
    s.setFaults({ errorRate: 1, kind: 'http502html' });
    const g = await get(s.url, '/block/max');
    expect(g.status).toBe(502);
    expect(g.headers.get('content-type')).toMatch(/text\/html/);
    expect(g.text).toContain('<html>');
  });

  it('malformed: 200 with a body that is not JSON', async () => {
    s.setFaults({ errorRate: 1, kind: 'malformed' });
    const g = await get(s.url, '/tx/list');
    expect(g.status).toBe(200);
    expect(() => JSON.parse(g.text)).toThrow();
  });

  it('truncated: Content-Length larger than the bytes sent, then the socket closes', async () => {
    s.setFaults({ errorRate: 1, kind: 'truncated' });
    const res = await fetch(s.url + '/tx/list');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(100);
    await expect(res.text()).rejects.toThrow();
  });

  it('reset: the connection is dropped without a response', async () => {
    s.setFaults({ errorRate: 1, kind: 'reset' });
    await expect(fetch(s.url + '/block/max')).rejects.toThrow();
  });

  it('hang: no answer until the client gives up; close() does not hang', async () => {
    s.setFaults({ errorRate: 1, kind: 'hang' });
    await expect(fetch(s.url + '/block/max', { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    const pending = fetch(s.url + '/block/max').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 30));
    const t0 = Date.now();
    await s.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('errorRate is deterministic: 0.5 faults every second API request', async () => {
    s.setFaults({ errorRate: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(s.url, '/block/max')).status);
    expect(statuses).toEqual([200, 500, 200, 500, 200, 500]);
    expect(s.stats()._faults).toBe(3);
  });

  it('latency and jitter delay API responses but not the control plane', async () => {
    s.setFaults({ latencyMs: 120, jitterMs: 30 });
    let t0 = Date.now();
    expect((await get(s.url, '/block/max')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(115);
    t0 = Date.now();
    await get(s.url, '/_sim/stats');
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('control plane is never faulted; {} and /_sim/faults/reset clear faults', async () => {
    await post(s.url, '/_sim/faults', { errorRate: 1, kind: 'reset' });
    expect((await get(s.url, '/_sim/stats')).status).toBe(200);
    expect((await post(s.url, '/_sim/advance', { n: 1 })).status).toBe(200);
    await post(s.url, '/_sim/faults', {});
    expect((await getJson(s.url, '/block/max')).code).toBe(0);
    await post(s.url, '/_sim/faults', { errorRate: 1 });
    expect((await get(s.url, '/block/max')).status).toBe(500);
    await post(s.url, '/_sim/faults/reset', {});
    expect((await get(s.url, '/block/max')).status).toBe(200);
  });

  it('rejects invalid fault configurations', async () => {
    expect((await post(s.url, '/_sim/faults', { errorRate: 2 })).status).toBe(400);
    expect((await post(s.url, '/_sim/faults', { kind: 'explode' })).status).toBe(400);
    expect((await post(s.url, '/_sim/faults', { bogus: 1 })).status).toBe(400);
  });
});
