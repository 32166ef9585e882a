/**
 * GET /stream/activity on real sockets: validation, one event per
 * block naming a watched entity, resume, rebase, cost, metrics.
 */
import { describe, expect, it } from 'vitest';
import { rig, streamConfig, untilHub } from './kit.js';
import {
  ACTIVITY,
  onlyAt,
  readAndPublish,
  truthSet,
  txListRequests,
  untouched,
  type ActivityData,
} from './activity-kit.js';
import { untilEmitted } from '../helpers/until.js';

const r = rig();
const data = (d: string): ActivityData => JSON.parse(d) as ActivityData;

describe('/stream/activity', () => {
  it('refuses bad watch lists with a 400 envelope naming the parameter, before any stream opens', async () => {
    const { proxy } = await r.start({ stream: streamConfig({ activityMaxWatch: 2 }) });
    const cases: [string, number, RegExp][] = [
      ['', 4002, /^missing parameter address/],
      ['?address=nope', 4001, /^invalid parameter address: expected a Nebulas address/],
      ['?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef&contract=n1bad', 4001, /^invalid parameter contract: /],
      [
        '?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef&' +
          'address=n1JJr19pMT2csrKK8haEVxuGjHkrAuKD9S2&contract=n1iV6vqHHaMaiqEoEy1v2GxoDsvAy4C2z4w',
        4001,
        /^invalid parameter contract: at most 2/,
      ],
      ['?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef&lastEventId=x', 4001, /^invalid parameter lastEventId/],
    ];
    for (const [q, code, msg] of cases) {
      const c = await r.stream(proxy.url, { path: ACTIVITY, query: q });
      await c.until(() => c.ended, 5000, 'the refusal');
      expect(c.status, q).toBe(400);
      expect(c.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(c.body) as { code: number; msg: string; data: null };
      expect(body.code, q).toBe(code);
      expect(body.msg, q).toMatch(msg);
    }
    // Duplicates count once: two spellings of one address are within a bound of 1 entity.
    const dup = await r.stream(proxy.url, {
      path: ACTIVITY,
      query:
        '?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef&' +
        'contract=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef&address=n1JJr19pMT2csrKK8haEVxuGjHkrAuKD9S2',
    });
    expect(dup.status).toBe(200);
    expect(proxy.stream.activity.status().watched).toBe(2);
  });

  it(
    'sends one event per block naming a watched entity, ' + 'with its transactions, and costs no upstream request',
    async () => {
      const { sim, proxy } = await r.start();
      const h0 = sim.chain.head();
      const range = [h0 + 1, h0 + 2, h0 + 3];
      const a = onlyAt(h0 + 2, range);
      const b = untouched(range, h0 + 500);
      const c = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}&address=${b}` });
      expect(c.status).toBe(200);
      expect(c.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(c.headers['access-control-allow-origin']).toBe('*');
      await c.until(() => c.comments.includes('chainproxy activity stream'), 5000, 'the opening');
      expect(c.retry).toBe(3000);
      await untilHub(proxy, () => proxy.stream.activity.status().watched === 2, 'the watch');
      for (const h of range) {
        sim.chain.advance();
        const before = txListRequests(sim);
        await readAndPublish(proxy, h);
        // The reader's read (one tx/list page) is the only upstream request: the stream's read was a cache hit.
        expect(txListRequests(sim) - before).toBe(1);
      }
      await c.until(() => c.events.length >= 1, 5000, 'the event');
      expect(c.events.map((e) => e.id)).toEqual([String(h0 + 2)]);
      const d = data(c.events[0]!.data);
      expect(d.height).toBe(h0 + 2);
      expect(d.block_hash).toBe(truthSet(h0 + 2).blockHash);
      expect(d.complete).toBe(true);
      expect(d.txs.length).toBeGreaterThan(0);
      for (const tx of d.txs) expect(JSON.stringify(tx)).toContain(a);
      // The upstream's record bytes: every field of tx/list is there.
      const listed = (await (
        await fetch(`${proxy.url}/tx/list?block_height=${h0 + 2}&page=1&page_size=100`)
      ).json()) as {
        data: { list: Record<string, unknown>[] };
      };
      expect(d.txs).toEqual(listed.data.list.filter((t) => JSON.stringify(t).includes(a)));
    },
  );

  it(
    'resumes with Last-Event-ID: what a closed connection missed, ' +
      'no duplicate; a gap past what the history vouches for',
    async () => {
      const { sim, proxy } = await r.start({ stream: streamConfig({ activityLingerMs: 60_000 }) });
      const h0 = sim.chain.head();
      const range = [h0 + 1, h0 + 2, h0 + 3, h0 + 4];
      const a1 = onlyAt(h0 + 1, range);
      const a3 = onlyAt(h0 + 3, range);
      const q = `?address=${a1}&address=${a3}`;
      const c1 = await r.stream(proxy.url, { path: ACTIVITY, query: q });
      await untilHub(proxy, () => proxy.stream.activity.status().watched === 2, 'the watch');
      sim.chain.advance();
      await readAndPublish(proxy, h0 + 1);
      await c1.until(() => c1.events.length === 1, 5000, 'the first event');
      c1.close();
      await untilHub(proxy, () => proxy.stream.activity.status().streams === 0, 'the close');
      expect(proxy.stream.activity.status().lingering).toBe(2);
      for (const h of [h0 + 2, h0 + 3, h0 + 4]) {
        sim.chain.advance();
        await readAndPublish(proxy, h);
      }
      const c2 = await r.stream(proxy.url, { path: ACTIVITY, query: q, lastEventId: c1.events[0]!.id! });
      await c2.until(() => c2.events.length === 1, 5000, 'the replay');
      expect(c2.events.map((e) => [e.type, e.id])).toEqual([['message', String(h0 + 3)]]);
      expect(data(c2.events[0]!.data).txs.every((t) => JSON.stringify(t).includes(a3))).toBe(true);
      // A watch list never seen before cannot be vouched for below the newest height: a gap says so.
      const fresh = untouched(range, h0 + 900);
      const c3 = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${fresh}`, lastEventId: String(h0) });
      await c3.until(() => c3.events.length === 1, 5000, 'the gap');
      expect(c3.events[0]!.type).toBe('gap');
      expect(JSON.parse(c3.events[0]!.data)).toEqual({ from: h0 + 1, to: h0 + 4 });
    },
  );

  it(
    'keeps the history within STREAM_ACTIVITY_HISTORY_BYTES: ' +
      'a resume from before what is kept gets a gap, then the kept events',
    async () => {
      const { sim, proxy } = await r.start({ stream: streamConfig({ activityHistoryBytes: 2048 }) });
      const h0 = sim.chain.head();
      const heights = Array.from({ length: 12 }, (_, i) => h0 + 1 + i);
      const a = onlyAt(h0 + 1, [h0 + 1]);
      const c = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
      await untilHub(proxy, () => proxy.stream.activity.status().watched === 1, 'the watch');
      // Every block names a (the set says so): each is kept with a's transactions, if any.
      for (const h of heights) {
        sim.chain.advance();
        await readAndPublish(proxy, h, { ...truthSet(h), addresses: [...truthSet(h).addresses, a] });
      }
      await c.until(() => c.events.length === heights.length, 5000, 'every event');
      const st = proxy.stream.activity.status();
      expect(st.historyBytes, JSON.stringify(st)).toBeLessThanOrEqual(2048);
      const r2 = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}`, lastEventId: String(h0) });
      await r2.until(() => r2.events.length >= 2, 5000, 'the gap and the kept events');
      const gap = r2.events[0]!;
      expect(gap.type).toBe('gap');
      const { from, to } = JSON.parse(gap.data) as { from: number; to: number };
      expect(from).toBe(h0 + 1);
      expect(to).toBeGreaterThan(h0 + 1);
      await r2.until(() => r2.events.length === 1 + (h0 + 12 - to), 5000, 'the kept events');
      expect(r2.events.slice(1).map((e) => Number(e.id))).toEqual(
        Array.from({ length: h0 + 12 - to }, (_, i) => to + 1 + i),
      );
    },
  );

  it(
    'sends heartbeats, and a bare id of the newest block ' + 'on open so a quiet connection has a resume point',
    async () => {
      const { sim, proxy } = await r.start({ stream: streamConfig({ heartbeatMs: 50 }) });
      const h0 = sim.chain.head();
      sim.chain.advance();
      await readAndPublish(proxy, h0 + 1);
      const net = await import('node:net');
      const url = new URL(proxy.url);
      const sock = net.connect(Number(url.port), url.hostname);
      let text = '';
      sock.setEncoding('utf8');
      sock.on('data', (d: string) => (text += d));
      // HTTP/1.0: no chunked framing between the frames.
      sock.write(`GET ${ACTIVITY}?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef HTTP/1.0\r\nHost: ${url.host}\r\n\r\n`);
      await untilEmitted(sock, 'data', () => text.split(': heartbeat').length > 2, 'two heartbeats');
      sock.destroy();
      expect(text).toContain(`retry: 3000\n\n: chainproxy activity stream\n\nid: ${h0 + 1}\n\n`);
    },
  );

  it('shares MAX_STREAMS and the per-client cap with /stream/heads', async () => {
    const { proxy } = await r.start({ stream: streamConfig({ maxPerClient: 2 }) });
    const q = '?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef';
    const heads = await r.stream(proxy.url);
    const one = await r.stream(proxy.url, { path: ACTIVITY, query: q });
    expect([heads.status, one.status]).toEqual([200, 200]);
    const two = await r.stream(proxy.url, { path: ACTIVITY, query: q });
    await two.until(() => two.ended, 5000, 'the refusal');
    expect(two.status).toBe(429);
    expect((JSON.parse(two.body) as { code: number }).code).toBe(4291);
  });

  it('without linger, blocks while away are not kept for the watch: the resume says so with a gap', async () => {
    const { sim, proxy } = await r.start({ stream: streamConfig({ activityLingerMs: 0 }) });
    const h0 = sim.chain.head();
    const a = onlyAt(h0 + 1, [h0 + 1, h0 + 2, h0 + 3]);
    const c1 = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
    await untilHub(proxy, () => proxy.stream.activity.status().watched === 1, 'the watch');
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 1);
    await c1.until(() => c1.events.length === 1, 5000, 'the event');
    c1.close();
    await untilHub(proxy, () => proxy.stream.activity.status().streams === 0, 'the close');
    expect(proxy.stream.activity.status().lingering).toBe(0);
    for (const h of [h0 + 2, h0 + 3]) {
      sim.chain.advance();
      await readAndPublish(proxy, h, { ...truthSet(h), addresses: [...truthSet(h).addresses, a] });
    }
    const c2 = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}`, lastEventId: String(h0 + 1) });
    await c2.until(() => c2.events.length === 1, 5000, 'the gap');
    expect(c2.events[0]!.type).toBe('gap');
    expect(JSON.parse(c2.events[0]!.data)).toEqual({ from: h0 + 2, to: h0 + 3 });
  });

  it(
    'rebases like the head stream: a subscriber that got a dropped height is told, ' +
      'and the new block at that height is sent',
    async () => {
      const { sim, proxy } = await r.start();
      const h0 = sim.chain.head();
      const a = onlyAt(h0 + 1, [h0 + 1, h0 + 2]);
      const c = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
      await untilHub(proxy, () => proxy.stream.activity.status().watched === 1, 'the watch');
      sim.chain.advance();
      await readAndPublish(proxy, h0 + 1);
      await c.until(() => c.events.length === 1, 5000, 'the event');
      // The same height again under another hash: the first one is void.
      await readAndPublish(proxy, h0 + 1, truthSet(h0 + 1, 'f'.repeat(64)));
      await c.until(() => c.events.length === 3, 5000, 'the rebase and the new event');
      expect(c.events.map((e) => [e.type, e.id])).toEqual([
        ['message', String(h0 + 1)],
        ['rebase', String(h0)],
        ['message', String(h0 + 1)],
      ]);
      expect(JSON.parse(c.events[1]!.data)).toMatchObject({ height: h0, from: h0 + 1 });
      expect(data(c.events[2]!.data).block_hash).toBe('f'.repeat(64));
      // A rebase published by the reader: heights above it are dropped from the history.
      proxy.stream.activity.touched.publishRebase(h0);
      expect(proxy.stream.activity.status().latestHeight).toBe(h0);
      await c.until(() => c.events.length === 4, 5000, 'the second rebase');
      expect(c.events[3]!.type).toBe('rebase');
    },
  );

  it('counts streams, watched entities and delivered events in /metrics and /status', async () => {
    const { sim, proxy } = await r.start();
    const h0 = sim.chain.head();
    const a = onlyAt(h0 + 1, [h0 + 1]);
    const c = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
    await untilHub(proxy, () => proxy.stream.activity.status().watched === 1, 'the watch');
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 1);
    await c.until(() => c.events.length === 1, 5000, 'the event');
    const m = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(m).toMatch(/^chainproxy_activity_streams 1$/m);
    expect(m).toMatch(/^chainproxy_activity_watched_entities\{state="open"\} 1$/m);
    expect(m).toMatch(/^chainproxy_activity_events_delivered_total 1$/m);
    expect(m).toMatch(/^chainproxy_activity_dropped_total 0$/m);
    const status = (await (await fetch(`${proxy.url}/status`)).json()) as {
      data: { activity: Record<string, number> };
    };
    expect(status.data.activity).toMatchObject({ streams: 1, watched: 1, lingering: 0, latestHeight: h0 + 1 });
    expect(status.data.activity['historyBytes']).toBeGreaterThan(0);
  });
});
