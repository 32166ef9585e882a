/**
 * A recording wrapper in front of the upstream simulator: forwards every request and notes,
 * per request URL, whether the answer equals the previous one it gave for that URL (stamps and
 * link hosts aside): an unchanged refetch, seen from the upstream side.
 */
import { createHash } from 'node:crypto';
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeBody } from './truth.js';

export interface RecorderCounts {
  requests: number;
  unchanged: number;
  /** per endpoint: [requests, unchanged] */
  byEndpoint: Map<string, [number, number]>;
}

export interface Recorder {
  url: string;
  counts(): RecorderCounts;
  /** Zeroes the counts; the last answer per URL is kept (a refetch after the reset still compares). */
  reset(): void;
  close(): Promise<void>;
}

export async function startRecorder(target: string): Promise<Recorder> {
  const t = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const last = new Map<string, string>();
  let c: RecorderCounts = { requests: 0, unchanged: 0, byEndpoint: new Map() };
  const note = (url: string, status: number, body: Buffer): void => {
    const endpoint = url.split('?')[0]!.slice(1);
    const digest = createHash('sha1').update(status + ' ' + normalizeBody(body, endpoint)).digest('base64');
    const same = last.get(url) === digest;
    last.set(url, digest);
    c.requests++;
    if (same) c.unchanged++;
    const e = c.byEndpoint.get(endpoint) ?? [0, 0];
    e[0]++;
    if (same) e[1]++;
    c.byEndpoint.set(endpoint, e);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const up = request({ host: t.hostname, port: t.port, path: url, method: req.method, headers: req.headers, agent }, (ur) => {
      const chunks: Buffer[] = [];
      ur.on('data', (d: Buffer) => chunks.push(d));
      ur.on('end', () => {
        const body = Buffer.concat(chunks);
        if (!url.startsWith('/_sim/')) note(url, ur.statusCode ?? 0, body);
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        res.end(body);
      });
      ur.on('error', () => res.destroy());
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => c,
    reset: () => {
      c = { requests: 0, unchanged: 0, byEndpoint: new Map() };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
