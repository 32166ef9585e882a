/**
 * A batch item nested hundreds of thousands deep is a client error: a 400
 * envelope naming the item, no error-level log line, no 5xx in the metrics.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/app.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';

let up: FakeUpstream;
let proxy: ProxyHandle;
const lines: Array<Record<string, unknown>> = [];
const DEPTH = 400_000;

beforeAll(async () => {
  up = await startFakeUpstream();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  proxy = await startProxy(testConfig([up.url], { logLevel: 'info' }), { logger: pino({ level: 'info' }, sink) });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});

const post = (body: string) =>
  fetch(`${proxy.url}/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

async function serverErrors(): Promise<string[]> {
  const text = await (await fetch(`${proxy.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('chainproxy_requests_total') && l.includes('status_class="5xx"') && !l.endsWith(' 0'));
}

describe('a deeply nested batch item', () => {
  it.each([
    ['an array', `{"requests":["block/max",${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}]}`, '[…]'],
    // Objects as deep as the 1 MiB body limit allows.
    ['an object', `{"requests":["block/max",${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}]}`, '{…}'],
  ])('%s: a 400 naming the item in place, no error log, no 5xx', async (_name, body, shown) => {
    lines.length = 0;
    const r = await post(body);
    const text = await r.text();
    expect(r.status, text.slice(0, 200)).toBe(200);
    expect(text.length).toBeLessThan(2000);
    const items = (
      JSON.parse(text) as { data: Array<{ request: string; status: number; body: { code: number; msg: string } }> }
    ).data;
    expect(items[0]!.status).toBe(200);
    expect(items[1]!.request).toBe(shown);
    expect(items[1]!.status).toBe(400);
    expect(items[1]!.body.code).toBe(4001);
    expect(items[1]!.body.msg).toMatch(/^invalid batch item 1: expected a request string/);
    expect(lines.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
    expect(await serverErrors()).toEqual([]);
  });

  it('a body the JSON parser refuses to walk (deep __proto__ keys) is a 400, not a 500', async () => {
    lines.length = 0;
    const r = await post(`{"requests":[${'{"__proto__":'.repeat(60_000)}1${'}'.repeat(60_000)}]}`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: number }).code).toBe(4000);
    expect(lines.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
    expect(await serverErrors()).toEqual([]);
  });
});
