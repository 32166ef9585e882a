import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { counter } from '../helpers/replica.js';
import { rig, streamConfig, untilFeed, untilHub } from './kit.js';

const r = rig();

describe('stream limits and backpressure', () => {
  it('refuses streams beyond MAX_STREAMS with a 503 envelope, and admits again once one closes', async () => {
    const { proxy } = await r.start({ stream: streamConfig({ maxStreams: 2, maxPerClient: 10 }) });
    const a = await r.stream(proxy.url);
    await r.stream(proxy.url);
    const c = await r.stream(proxy.url);
    await c.until(() => c.ended);
    expect(c.status).toBe(503);
    expect(c.headers['retry-after']).toBe('3');
    expect(JSON.parse(c.body)).toEqual({ code: 5032, msg: 'too many open streams; retry later', data: null });
    expect(await counter(proxy.url, 'chainproxy_stream_refused_total', { reason: 'max_streams' })).toBe(1);
    expect(await counter(proxy.url, 'chainproxy_stream_open')).toBe(2);
    a.close();
    await untilHub(proxy, () => proxy.stream.hub.size === 1, 'the closed stream to leave');
    const d = await r.stream(proxy.url);
    expect(d.status).toBe(200);
  });

  it('caps streams per client address, the address resolved through TRUST_PROXY', async () => {
    const { proxy } = await r.start({ trustProxy: ['127.0.0.1'], stream: streamConfig({ maxPerClient: 1 }) });
    const alice = { 'x-forwarded-for': '203.0.113.7' };
    const bob = { 'x-forwarded-for': '198.51.100.9' };
    expect((await r.stream(proxy.url, { headers: alice })).status).toBe(200);
    const again = await r.stream(proxy.url, { headers: alice });
    await again.until(() => again.ended);
    expect(again.status).toBe(429);
    expect(JSON.parse(again.body)).toMatchObject({ code: 4291 });
    expect((await r.stream(proxy.url, { headers: bob })).status).toBe(200);
    expect(await counter(proxy.url, 'chainproxy_stream_refused_total', { reason: 'per_client' })).toBe(1);
  });

  it('drops a subscriber that does not read, which then resumes without a gap', async () => {
    const { sim, proxy } = await r.start({
      stream: streamConfig({ maxBufferBytes: 200 * 1024 }),
      limits: { maxPageSize: 100 },
    });
    // A raw socket that sends the request and never reads: the kernel buffers fill, then the proxy's.
    const url = new URL(proxy.url);
    const sock = connect(Number(url.port), url.hostname);
    sock.write(`GET /stream/heads HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
    sock.pause();
    await untilHub(proxy, () => proxy.stream.hub.size === 1, 'the slow stream to open');
    const watcher = await r.stream(proxy.url);
    const start = sim.chain.head();
    let dropped = 0;
    for (let round = 0; round < 300 && dropped === 0; round++) {
      sim.chain.advance(100);
      const target = sim.chain.head();
      await untilFeed(proxy, (e) => e === target, `head ${target}`);
      dropped = await counter(proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'slow' });
    }
    sock.destroy();
    expect(dropped).toBe(1);
    // The healthy subscriber got every head, in order.
    const end = sim.chain.head();
    await watcher.until(() => watcher.events.length === end - start + 1, 20_000, 'every head');
    expect(watcher.heights()).toEqual(Array.from({ length: end - start + 1 }, (_, i) => start + i));
    // A dropped client resumes from the id it saw last.
    const resumed = await r.stream(proxy.url, { lastEventId: String(end - 5) });
    await resumed.until(() => resumed.events.length === 5);
    expect(resumed.heights()).toEqual([end - 4, end - 3, end - 2, end - 1, end]);
  });

  it('ends every open stream on shutdown, so closing the proxy does not wait for them', async () => {
    const { proxy } = await r.start();
    const clients = await Promise.all([1, 2, 3].map(() => r.stream(proxy.url)));
    await Promise.all(clients.map((c) => c.until(() => c.events.length === 1)));
    const started = Date.now();
    await proxy.close();
    expect(Date.now() - started).toBeLessThan(5000);
    await Promise.all(clients.map((c) => c.until(() => c.ended, 5000, 'the stream to end')));
  });
});
