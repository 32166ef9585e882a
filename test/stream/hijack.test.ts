/**
 * A resume point that cannot be read is refused before the response is
 * hijacked: a 400 envelope naming it, the connection handled as any other
 * request. (A throw after the hijack left such connections open forever,
 * outside every cap: a handful of them locked everyone out.)
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { counter, get } from '../helpers/replica.js';
import { rig } from './kit.js';

const r = rig();

/**
 * One request on its own connection (`Connection: close`); resolves
 * with everything the server wrote once it ends the connection.
 */
function rawExchange(base: string, head: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(url.port), url.hostname);
    let text = '';
    sock.setEncoding('utf8');
    sock.on('data', (c: string) => (text += c));
    sock.on('end', () => resolve(text));
    sock.on('error', reject);
    sock.write(`${head}\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`);
  });
}

function bodyOf(raw: string): unknown {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

describe('a resume point that cannot be read', () => {
  it(
    'gets a 400 envelope naming lastEventId, and the connection ends: ' +
      'as many as the connection cap do not lock anyone out',
    async () => {
      const { proxy } = await r.start({ http: { ...defaultConfig().http, maxConnections: 4 } });
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() => rawExchange(proxy.url, 'GET /stream/heads?lastEventId=%ZZ HTTP/1.1')),
      );
      for (const a of answers) {
        expect(a.startsWith('HTTP/1.1 400 ')).toBe(true);
        expect(bodyOf(a)).toEqual({
          code: 4001,
          msg: 'invalid parameter lastEventId: malformed percent-encoding',
          data: null,
        });
      }
      expect(proxy.stream.hub.size).toBe(0);
      expect((await get(proxy.url, '/healthz')).status).toBe(200);
      expect(await counter(proxy.url, 'chainproxy_stream_open')).toBe(0);
    },
  );

  it('names the header or parameter at fault for every unreadable spelling', async () => {
    const { proxy } = await r.start();
    const cases: [string, string, number][] = [
      ['GET /stream/heads?lastEventId=abc HTTP/1.1', 'invalid parameter lastEventId: expected a block height', 4001],
      ['GET /stream/heads?lastEventId=-1 HTTP/1.1', 'invalid parameter lastEventId: expected a block height', 4001],
      ['GET /stream/heads?lastEventId=1&lastEventId=2 HTTP/1.1', 'duplicated parameter lastEventId', 4003],
      [
        'GET /stream/heads HTTP/1.1\r\nLast-Event-ID: 12x',
        'invalid header Last-Event-ID: expected a block height',
        4001,
      ],
    ];
    for (const [head, msg, code] of cases) {
      const a = await rawExchange(proxy.url, head);
      expect(a.startsWith('HTTP/1.1 400 '), head).toBe(true);
      expect(bodyOf(a), head).toEqual({ code, msg, data: null });
    }
    // Empty means absent: the newest event, as without one.
    const empty = await r.stream(proxy.url, { query: '?lastEventId=' });
    await empty.until(() => empty.events.length === 1);
    expect(empty.status).toBe(200);
  });
});
