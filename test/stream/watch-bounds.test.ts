/**
 * The watches of /stream/activity are bounded: a closed connection's watches
 * linger charged to its client, at most STREAM_MAX_PER_CLIENT x
 * STREAM_ACTIVITY_MAX_WATCH per client (its oldest go first), and every
 * watch, open or lingering, is charged to STREAM_ACTIVITY_WATCH_BYTES: a new
 * stream forgets the oldest lingering watches it needs room for, and one that
 * would not fit even then is refused 503 (code 5032, Retry-After) while other
 * clients are still served. Clients are told apart by X-Forwarded-For from a
 * trusted proxy.
 */
import { describe, expect, it } from 'vitest';
import { normalAddress } from '../../src/sim/ids.js';
import { rig, streamConfig, untilHub } from './kit.js';
import { ACTIVITY } from './activity-kit.js';

const r = rig();
const WATCH = 800;
const MEMBER = 120;

/** `n` addresses no other call of this file returns (`from` apart). */
const addresses = (from: number, n: number): string[] =>
  Array.from({ length: n }, (_, i) => normalAddress(9, from + i));
const query = (list: readonly string[]): string => `?${list.map((a) => `address=${a}`).join('&')}`;
const as = (ip: string) => ({ 'x-forwarded-for': ip });

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('activity watch bounds', () => {
  it(
    'a client opening and closing streams leaves at most its share lingering, ' + 'its oldest forgotten first',
    async () => {
      const { proxy } = await r.start({
        trustProxy: ['127.0.0.1'],
        stream: streamConfig({ maxPerClient: 2, activityMaxWatch: 100, activityLingerMs: 300_000 }),
      });
      const activity = proxy.stream.activity;
      const clients = 6;
      const streams = 8;
      let next = 0;
      const first: string[][] = [];
      const last: string[][] = [];
      for (let c = 0; c < clients; c++) {
        for (let s = 0; s < streams; s++) {
          const list = addresses(next, 100);
          next += 100;
          if (s === 0) first.push(list);
          if (s === streams - 1) last.push(list);
          const sse = await r.stream(proxy.url, {
            path: ACTIVITY,
            query: query(list),
            headers: as(`203.0.113.${c + 1}`),
          });
          expect(sse.status).toBe(200);
          sse.close();
          await untilHub(proxy, () => activity.status().streams === 0, 'the close');
        }
      }
      // Each client keeps 2 x 100 lingering (STREAM_MAX_PER_CLIENT x STREAM_ACTIVITY_MAX_WATCH), not 800.
      const s = activity.status();
      expect([s.watched, s.lingering]).toEqual([0, clients * 200]);
      expect(activity.channel.counts().clients).toBe(clients);
      expect(s.watchBytes).toBe(clients * 200 * WATCH);
      expect(await metric(proxy.url, 'chainproxy_activity_lingering_forgotten_total{reason="client"}')).toBe(
        clients * (streams - 2) * 100,
      );
      for (let c = 0; c < clients; c++) {
        expect(activity.channel.since(first[c]![0]!), `client ${c}'s oldest`).toBeNull();
        expect(activity.channel.since(last[c]![99]!), `client ${c}'s newest`).not.toBeNull();
      }
    },
  );

  it(
    'every watch is charged to STREAM_ACTIVITY_WATCH_BYTES: ' +
      'the oldest lingering go for a new stream; one that cannot fit is refused 503',
    async () => {
      const budget = 256 * 1024;
      const { proxy } = await r.start({
        trustProxy: ['127.0.0.1'],
        stream: streamConfig({ activityWatchBytes: budget, activityLingerMs: 300_000 }),
      });
      const activity = proxy.stream.activity;
      const a = addresses(10_000, 100);
      const b = addresses(10_100, 100);
      const c = addresses(10_200, 100);
      const sa = await r.stream(proxy.url, { path: ACTIVITY, query: query(a), headers: as('198.51.100.1') });
      const sb = await r.stream(proxy.url, { path: ACTIVITY, query: query(b), headers: as('198.51.100.2') });
      expect([sa.status, sb.status]).toEqual([200, 200]);
      expect(activity.status().watchBytes).toBe(200 * (WATCH + MEMBER));

      // Two open streams of 100 hold 184 000 bytes: a third (92 000 more) cannot fit in 262 144.
      const refused = await r.stream(proxy.url, { path: ACTIVITY, query: query(c), headers: as('198.51.100.3') });
      await refused.until(() => refused.ended, 5000, 'the refusal');
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('3');
      expect(JSON.parse(refused.body)).toEqual({ code: 5032, msg: 'too many open streams; retry later', data: null });
      expect(await metric(proxy.url, 'chainproxy_stream_refused_total{reason="watch_budget"}')).toBe(1);

      // Others are still served: the API, the head stream, a stream watching what is already watched.
      expect((await fetch(`${proxy.url}/block/max`, { headers: as('198.51.100.4') })).status).toBe(200);
      const heads = await r.stream(proxy.url, { headers: as('198.51.100.5') });
      expect(heads.status).toBe(200);
      const shared = await r.stream(proxy.url, {
        path: ACTIVITY,
        query: query(a.slice(0, 3)),
        headers: as('198.51.100.6'),
      });
      expect(shared.status).toBe(200);
      shared.close();
      await untilHub(proxy, () => activity.status().streams === 2, 'the shared stream to close');

      // A's watches linger (80 000 + 92 000 open): C now fits once the 3 oldest of A's are forgotten.
      sa.close();
      await untilHub(
        proxy,
        () => activity.status().lingering === 100 && activity.status().streams === 1,
        'A to linger',
      );
      const sc = await r.stream(proxy.url, { path: ACTIVITY, query: query(c), headers: as('198.51.100.3') });
      expect(sc.status).toBe(200);
      const s = activity.status();
      expect([s.watched, s.lingering]).toEqual([200, 97]);
      expect(s.watchBytes).toBeLessThanOrEqual(budget);
      expect(s.watchMaxBytes).toBe(budget);
      expect(await metric(proxy.url, 'chainproxy_activity_lingering_forgotten_total{reason="budget"}')).toBe(3);
      expect(a.slice(0, 3).map((e) => activity.channel.since(e))).toEqual([null, null, null]);
      expect(activity.channel.since(a[3]!)).not.toBeNull();
      expect(await metric(proxy.url, 'chainproxy_activity_watch_bytes')).toBe(s.watchBytes);
    },
  );
});
