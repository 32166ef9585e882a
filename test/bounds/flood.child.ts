/**
 * Child process of flood.test.ts (run with --expose-gc): a real proxy (in
 * this process, so its structures can be read and the heap measured) in front
 * of the simulator at argv[2], flooded over real sockets from many client
 * addresses (X-Forwarded-For from a trusted loopback proxy):
 *   activity: open-and-close /stream/activity, 100 new addresses each;
 *   heads:    /stream/heads held open past MAX_STREAMS, then closed;
 *   clients:  one cold request each from more addresses than RATE_LIMIT_MAX_CLIENTS;
 *   pages:    /pages/address for new addresses (parts charged to each client's miss budget).
 * Prints, as JSON, the size of every structure keyed by client input after
 * each flood and the heap growth (after forced collections) since a warm start.
 */
import { connect } from 'node:net';
import { pino } from 'pino';
import { buildProxy } from '../../src/app.js';
import { normalAddress } from '../../src/sim/ids.js';
import { testConfig } from '../helpers/proxy.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const heap = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  // Buffers (cached bodies) live outside the JS heap.
  return m.heapUsed + m.external;
};

const MIB = 1024 * 1024;
const config = testConfig([process.argv[2]!], {
  logLevel: 'silent',
  trustProxy: ['127.0.0.1'],
  cacheMaxBytes: 1 * MIB,
  rateLimit: { enabled: true, max: 100_000, windowMs: 60_000, maxClients: 300 },
  missBudget: 3,
  stream: {
    ...testConfig([]).stream,
    maxStreams: 100,
    maxPerClient: 2,
    activityWatchBytes: 2 * MIB,
    activityLingerMs: 300_000,
  },
});
const built = await buildProxy(config, { logger: pino({ level: 'silent' }) });
const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
const port = Number(new URL(url).port);
const limiter = built.limiter!;
const { hub, activity } = built.stream;

/** One request on its own connection; resolves with the status once the head is in (the connection is then closed). */
function hit(path: string, ip: string): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    let text = '';
    const done = (status: number): void => {
      s.destroy();
      resolve(status);
    };
    s.on('connect', () =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${ip}\r\nConnection: close\r\n\r\n`),
    );
    s.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m !== null && (text.includes('\r\n\r\n') || text.length > 64)) done(Number(m[1]));
    });
    s.on('error', () => done(0));
  });
}

/** Runs `n` tasks, `width` at a time; returns the count of each status. */
async function flood(n: number, width: number, task: (i: number) => Promise<number>): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const status = await task(next++);
        seen[status] = (seen[status] ?? 0) + 1;
      }
    }),
  );
  return seen;
}

let k = 0;
const fresh = (n: number): string[] => Array.from({ length: n }, () => normalAddress(11, k++));
const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const watchQuery = (list: string[]): string => list.map((a) => `address=${a}`).join('&');

// Warm start: every path below once, so what is compiled or created once is in the baseline.
await hit(`/stream/activity?${watchQuery(fresh(2))}`, ip(1));
await hit('/stream/heads', ip(1));
// As wide as the floods, so the upstream connection pool (UPSTREAM_CONNECTIONS) is open already.
await flood(40, 20, () => hit(`/address/info?address=${fresh(1)[0]}`, ip(2)));
await flood(40, 20, () => hit(`/pages/address?address=${fresh(1)[0]}`, ip(3)));
await new Promise((r) => setTimeout(r, 100));
heap();
const base = heap();
let mark = base;
/** Heap growth since the last call. */
const grew = (): number => {
  const now = heap();
  const d = now - mark;
  mark = now;
  return d;
};
const report: Record<string, unknown> = {};

/** Two equal halves of a flood: once the bound is reached in the first, the second must not grow the heap. */
async function halves(
  n: number,
  task: (i: number) => Promise<number>,
  settle: () => Promise<void> = async () => {},
): Promise<{ statuses: Record<string, number>; grown: [number, number] }> {
  const a = await flood(n / 2, 20, task);
  await settle();
  const first = grew();
  const b = await flood(n / 2, 20, (i) => task(n / 2 + i));
  await settle();
  const second = grew();
  const statuses: Record<string, number> = { ...a };
  for (const [k, v] of Object.entries(b)) statuses[k] = (statuses[k] ?? 0) + v;
  return { statuses, grown: [first, second] };
}

const closed = async (): Promise<void> => {
  while (activity.status().streams > 0) await new Promise((r) => setTimeout(r, 10));
};
const a = await halves(400, (i) => hit(`/stream/activity?${watchQuery(fresh(100))}`, ip(1000 + (i % 100))), closed);
report['activity'] = { ...a, ...activity.status(), clients: activity.channel.counts().clients };

/** Opens `n` head streams from as many addresses, holds them all, then closes them. */
async function heads(
  n: number,
  from: number,
): Promise<{ statuses: Record<string, number>; open: { streams: number; clients: number } }> {
  const statuses: Record<string, number> = {};
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<ReturnType<typeof connect>>((resolve) => {
          const s = connect({ port, host: '127.0.0.1' });
          s.on('connect', () =>
            s.write(`GET /stream/heads HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${ip(from + i)}\r\n\r\n`),
          );
          s.once('data', (d: Buffer) => {
            const status = /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? '0';
            statuses[status] = (statuses[status] ?? 0) + 1;
            resolve(s);
          });
          s.on('error', () => resolve(s));
        }),
    ),
  );
  const open = { streams: hub.size, clients: hub.clients };
  for (const s of sockets) s.destroy();
  while (hub.size > 0) await new Promise((r) => setTimeout(r, 10));
  return { statuses, open };
}
const h1 = await heads(300, 5000);
const g1 = grew();
const h2 = await heads(300, 6000);
report['heads'] = {
  statuses: h1.statuses,
  open: h1.open,
  again: h2.statuses,
  afterClose: { streams: hub.size, clients: hub.clients },
  grown: [g1, grew()],
};

report['clients'] = {
  ...(await halves(1000, (i) => hit(`/address/info?address=${fresh(1)[0]}`, ip(20_000 + i)))),
  buckets: limiter.buckets,
  missBuckets: limiter.missBuckets,
  memoryBytes: built.memory.bytes,
  memoryEntries: built.memory.entries,
};

report['pages'] = {
  ...(await halves(300, (i) => hit(`/pages/address?address=${fresh(1)[0]}`, ip(40_000 + i)))),
  buckets: limiter.buckets,
  missBuckets: limiter.missBuckets,
  memoryBytes: built.memory.bytes,
  memoryEntries: built.memory.entries,
};

report['heap'] = { grown: heap() - base, watchBytes: activity.channel.bytes, memoryBytes: built.memory.bytes };
await built.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
