/**
 * The OTLP/HTTP export transport against a receiver on a real socket: one
 * connection for successive exports, the SDK's retry rules (Retry-After
 * honoured, 4xx not retried, a refused connection retried), gzip when
 * configured, and what it sends as the SDK does (URL, headers).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { afterEach, describe, expect, it } from 'vitest';
import { retryAfterMs, undiciTransport } from '../../src/tracing/export-transport.js';

interface Got {
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server === null ? r() : server.close(() => r())));
  server = null;
});

/** A receiver answering with `statuses` in turn (then 200), counting connections. */
async function receiver(statuses: Array<[number, Record<string, string>?]> = []) {
  const got: Got[] = [];
  let connections = 0;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const [status, headers] = statuses.shift() ?? [200];
      res.writeHead(status, headers ?? {});
      res.end();
    });
  });
  server.keepAliveTimeout = 600_000;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, base, connections: () => connections };
}

const settings = (url: string, more: { compression?: CompressionAlgorithm; headers?: Record<string, string> } = {}) =>
  convertLegacyHttpOptions({ url, ...more }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });

const DATA = new Uint8Array([1, 2, 3, 4, 5]);

describe('OTLP/HTTP export transport (undici)', () => {
  it('posts the data to the URL with the configured headers; successive exports share one connection', async () => {
    const r = await receiver();
    const t = undiciTransport(settings(`${r.base}/v1/traces`, { headers: { 'x-tenant': 'eu1' } }));
    for (let i = 0; i < 3; i++) expect((await t.send(DATA, 5000)).status).toBe('success');
    expect(r.got.map((g) => g.url)).toEqual(['/v1/traces', '/v1/traces', '/v1/traces']);
    expect(r.got[0]!.headers['content-type']).toBe('application/x-protobuf');
    expect(r.got[0]!.headers['x-tenant']).toBe('eu1');
    expect(Buffer.compare(r.got[0]!.body, Buffer.from(DATA))).toBe(0);
    expect(r.connections()).toBe(1);
    t.shutdown();
  });

  it('a 503 with Retry-After is retried after it; a 400 is a failure, not retried', async () => {
    const r = await receiver([[503, { 'retry-after': '0' }], [400]]);
    const t = undiciTransport(settings(`${r.base}/v1/traces`));
    const first = await t.send(DATA, 5000);
    // 503 (Retry-After: 0 is "now"), then the 400: a failure after two attempts.
    expect(first.status).toBe('failure');
    expect(r.got).toHaveLength(2);
    expect((await t.send(DATA, 5000)).status).toBe('success');
    t.shutdown();
  });

  it('gzip when OTEL compression asks for it', async () => {
    const r = await receiver();
    const t = undiciTransport(settings(`${r.base}/v1/traces`, { compression: CompressionAlgorithm.GZIP }));
    expect((await t.send(DATA, 5000)).status).toBe('success');
    expect(r.got[0]!.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(gunzipSync(r.got[0]!.body), Buffer.from(DATA))).toBe(0);
    t.shutdown();
  });

  it('nothing listening: retryable, given up within the timeout', async () => {
    const r = await receiver();
    const url = `${r.base}/v1/traces`;
    server!.close();
    server = null;
    const t = undiciTransport(settings(url));
    const started = Date.now();
    const result = await t.send(DATA, 300);
    expect(result.status).toBe('retryable');
    expect(Date.now() - started).toBeLessThan(3000);
    t.shutdown();
  });

  it('Retry-After as seconds or a date', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0')).toBe(-1);
    expect(retryAfterMs(new Date(Date.now() - 1000).toUTCString())).toBe(0);
  });
});
