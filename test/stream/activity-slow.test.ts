/**
 * A /stream/activity subscriber that does not read is dropped once its
 * unsent bytes pass STREAM_MAX_BUFFER_BYTES (counted as an activity drop),
 * while a reading subscriber of the same address gets every event; the
 * dropped one resumes from its last id without a gap. Events are made large
 * with long block hashes so the kernel buffers fill within a few blocks.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { counter } from '../helpers/replica.js';
import { rig, streamConfig, untilHub } from './kit.js';
import { ACTIVITY, onlyAt, truthSet } from './activity-kit.js';

const r = rig();

describe('/stream/activity slow consumers', () => {
  it('drops a subscriber that does not read; a reading one gets every event; the dropped one resumes', async () => {
    const { sim, proxy } = await r.start({
      stream: streamConfig({ maxBufferBytes: 64 * 1024, activityHistoryBytes: 64 * 1024 * 1024 }),
    });
    const h0 = sim.chain.head();
    const a = onlyAt(h0 + 1, [h0 + 1]);
    const url = new URL(proxy.url);
    const sock = connect(Number(url.port), url.hostname);
    sock.write(`GET ${ACTIVITY}?address=${a} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
    sock.pause();
    await untilHub(proxy, () => proxy.stream.activity.status().streams === 1, 'the slow stream to open');
    const reader = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
    await untilHub(proxy, () => proxy.stream.activity.status().streams === 2, 'the reading stream');
    let dropped = 0;
    let h = h0;
    while (dropped === 0 && h < h0 + 400) {
      h++;
      // Every set names a; a 256 KiB block hash makes each event that large.
      proxy.stream.activity.touched.publishBlock({ ...truthSet(h, `${h}`.padEnd(256 * 1024, 'f')), addresses: [a] });
      await proxy.stream.activity.feed.settled();
      dropped = await counter(proxy.url, 'chainproxy_activity_dropped_total');
    }
    sock.destroy();
    expect(dropped).toBe(1);
    expect(await counter(proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'slow' })).toBe(1);
    await reader.until(() => reader.events.length === h - h0, 20_000, 'every event');
    expect(reader.events.map((e) => Number(e.id))).toEqual(Array.from({ length: h - h0 }, (_, i) => h0 + 1 + i));
    const resumed = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}`, lastEventId: String(h - 2) });
    await resumed.until(() => resumed.events.length === 2, 10_000, 'the replay');
    expect(resumed.events.map((e) => Number(e.id))).toEqual([h - 1, h]);
  });
});
