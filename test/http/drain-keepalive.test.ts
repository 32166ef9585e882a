/**
 * During the drain, a request that arrives on a connection still busy with an
 * earlier one (pipelined) is served like any other, with `Connection: close`,
 * and never gets a body outside the `{code,msg,data}` envelope.
 */
import { Client } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';

const fakes: FakeUpstream[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

describe('drain and keep-alive', () => {
  it('a pipelined request behind an in-flight one is served during the drain, with Connection: close', async () => {
    const { handler, release } = heldFixtures('/tx/list?');
    const fake = await startFakeUpstream(handler);
    fakes.push(fake);
    const proxy: ProxyHandle = await startTestProxy([fake.url]);
    const client = new Client(proxy.url, { pipelining: 2 });
    clients.push(client);

    const first = client.request({ path: '/tx/list?page=1&page_size=2', method: 'GET' });
    const second = client.request({ path: '/block/max', method: 'GET' });
    await fake.arrived(1, '/tx/list', 'the first upstream request');
    expect(fake.count('/tx/list')).toBe(1);
    const closed = proxy.close();
    await waitFor(() => !proxy.app.server.listening, 5000, 'the server to stop accepting');
    release();

    const a = await first;
    expect(a.statusCode).toBe(200);
    expect(((await a.body.json()) as { code: number }).code).toBe(0);
    const b = await second;
    const body = (await b.body.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['code', 'msg', 'data']);
    expect(b.statusCode).toBe(200);
    expect(body['code']).toBe(0);
    expect(b.headers['connection']).toBe('close');
    await closed;
  });
});
