/**
 * A recording wrapper in front of the upstream simulator: forwards every request and classifies
 * it. A request carrying `x-chainproxy-purpose` is the proxy's own (background, counted by
 * purpose); any other is a client's miss: `first` when its URL was never requested before (since
 * the wrapper started, whoever asked), else `changed` or `unchanged` against the previous answer
 * for that URL (status + body, stamps and link hosts aside).
 */
import { createHash } from 'node:crypto';
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizeBody } from './truth.js';

export const PURPOSE_HEADER = 'x-chainproxy-purpose';

/** Upstream requests by class. */
export interface Split {
  requests: number;
  first: number;
  changed: number;
  unchanged: number;
  /** per purpose: the proxy's own requests, and how many of them were unchanged */
  background: Map<string, { requests: number; unchanged: number }>;
}

export interface RecorderCounts extends Split {
  byEndpoint: Map<string, Split>;
}

export interface Recorder {
  url: string;
  /** The counts since the last take (or the start), then zeroes them; the URLs seen and their last answers are kept. */
  take(): RecorderCounts;
  /** Wall ms of every `first` request since the wrapper started. */
  firstTimes(): readonly number[];
  close(): Promise<void>;
}

const emptySplit = (): Split => ({ requests: 0, first: 0, changed: 0, unchanged: 0, background: new Map() });

export const backgroundTotal = (s: Split): number => [...s.background.values()].reduce((a, b) => a + b.requests, 0);

type Class = 'first' | 'changed' | 'unchanged';

function add(s: Split, cls: Class, purpose: string | null): void {
  s.requests++;
  if (purpose === null) {
    s[cls]++;
    return;
  }
  const b = s.background.get(purpose) ?? { requests: 0, unchanged: 0 };
  b.requests++;
  if (cls === 'unchanged') b.unchanged++;
  s.background.set(purpose, b);
}

export async function startRecorder(target: string): Promise<Recorder> {
  const t = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const last = new Map<string, string>();
  const firsts: number[] = [];
  let c: RecorderCounts = { ...emptySplit(), byEndpoint: new Map() };
  const note = (url: string, purpose: string | null, status: number, body: Buffer): void => {
    const endpoint = url.split('?')[0]!.slice(1);
    const digest = createHash('sha1')
      .update(status + ' ' + normalizeBody(body, endpoint))
      .digest('base64');
    const prev = last.get(url);
    last.set(url, digest);
    const cls: Class = prev === undefined ? 'first' : prev === digest ? 'unchanged' : 'changed';
    if (cls === 'first') firsts.push(Date.now());
    add(c, cls, purpose);
    const e = c.byEndpoint.get(endpoint) ?? emptySplit();
    add(e, cls, purpose);
    c.byEndpoint.set(endpoint, e);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const h = req.headers[PURPOSE_HEADER];
    const purpose = typeof h === 'string' && h !== '' ? h : null;
    const up = request(
      { host: t.hostname, port: t.port, path: url, method: req.method, headers: req.headers, agent },
      (ur) => {
        const chunks: Buffer[] = [];
        ur.on('data', (d: Buffer) => chunks.push(d));
        ur.on('end', () => {
          const body = Buffer.concat(chunks);
          if (!url.startsWith('/_sim/')) note(url, purpose, ur.statusCode ?? 0, body);
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          res.end(body);
        });
        ur.on('error', () => res.destroy());
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    take: () => {
      const out = c;
      c = { ...emptySplit(), byEndpoint: new Map() };
      return out;
    },
    firstTimes: () => firsts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
