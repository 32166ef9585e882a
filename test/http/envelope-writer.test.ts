/** The one envelope writer: the same headers through every sink, Retry-After on every 503, overrides by name. */
import Fastify from 'fastify';
import { createServer } from 'node:http';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { EnvelopeWriter, installEnvelopeWriter, sendEnvelope } from '../../src/http/envelope-writer.js';

const BODY = Buffer.from('{"code":5031,"msg":"upstream busy; retry later","data":null}');

const pairs = (h: string[]) =>
  Object.fromEntries(Array.from({ length: h.length / 2 }, (_, i) => [h[2 * i], h[2 * i + 1]]));

describe('EnvelopeWriter', () => {
  const writer = new EnvelopeWriter({ upstreamIsSimulator: true });

  it('503: Retry-After by default, or the one given', () => {
    expect(pairs(writer.headers(503, BODY.length))).toMatchObject({
      'retry-after': '1',
      'cache-control': 'no-store',
      'content-type': 'application/json; charset=utf-8',
    });
    const h = writer.headers(503, BODY.length, { extra: ['retry-after', '7'] });
    expect(h.filter((x) => x === 'retry-after')).toHaveLength(1);
    expect(pairs(h)['retry-after']).toBe('7');
    expect(pairs(writer.headers(404, 10))['retry-after']).toBeUndefined();
  });

  it(
    'X-Cache ERROR on every error envelope, BYPASS on the others; ' +
      'X-Chain-Head when given; a default replaced by name; the simulator marker',
    () => {
      for (const status of [400, 401, 404, 405, 408, 429, 431, 500, 502, 503, 504])
        expect(pairs(writer.headers(status, 10))['x-cache'], String(status)).toBe('ERROR');
      for (const status of [200, 204])
        expect(pairs(writer.headers(status, 10))['x-cache'], String(status)).toBe('BYPASS');
      const h = pairs(writer.headers(429, 10, { head: 42, extra: ['access-control-expose-headers', 'X-Only'] }));
      expect(h).toMatchObject({
        'x-cache': 'ERROR',
        'x-chain-head': '42',
        'access-control-expose-headers': 'X-Only',
        'x-chainproxy-upstream': 'simulator',
        'content-length': '10',
      });
      expect(
        pairs(new EnvelopeWriter({ upstreamIsSimulator: false }).headers(404, 10))['x-chainproxy-upstream'],
      ).toBeUndefined();
    },
  );

  it('a Fastify reply, a raw response and a raw socket text carry the same headers', async () => {
    const app = Fastify();
    installEnvelopeWriter(app, writer);
    app.get('/f', (_req, reply) => sendEnvelope(reply, 503, BODY));
    const viaFastify = await app.listen({ port: 0, host: '127.0.0.1' });
    const raw = createServer((_req, res) => writer.write(res, 503, BODY));
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const port = (raw.address() as { port: number }).port;
    try {
      const a = await request(`${viaFastify}/f`);
      const b = await request(`http://127.0.0.1:${port}/`);
      // Each answer has its own request id; the rest is the same.
      const strip = (h: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(h).filter(([k]) => !['date', 'connection', 'keep-alive', 'x-request-id'].includes(k)),
        );
      expect(a.headers['x-request-id']).toBe('req-1'); // the Fastify request's id
      expect(b.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
      expect(a.statusCode).toBe(503);
      expect(strip(a.headers)).toEqual(strip(b.headers));
      expect(Buffer.from(await a.body.arrayBuffer())).toEqual(BODY);
      expect(Buffer.from(await b.body.arrayBuffer())).toEqual(BODY);
      const text = writer.rawResponse(503, BODY);
      expect(text.startsWith('HTTP/1.1 503 Service Unavailable\r\n')).toBe(true);
      for (const [k, v] of Object.entries(strip(a.headers))) expect(text, k).toContain(`${k}: ${String(v)}\r\n`);
      expect(text).toContain('connection: close\r\n');
      expect(text.endsWith(`\r\n\r\n${BODY.toString()}`)).toBe(true);
    } finally {
      await app.close();
      raw.close();
    }
  });
});
