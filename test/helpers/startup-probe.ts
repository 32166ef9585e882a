/**
 * Requests thrown at a port while a proxy starts: each on its own raw
 * connection (`Connection: close`), classified as refused (nothing
 * listening), answered (status, Retry-After, body), reset, or held (no answer
 * within `holdMs`). Used by the start-up test and bench/startup-window.ts.
 */
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/**
 * A free port below the kernel's ephemeral range. Probes connect from
 * ephemeral ports before anything listens: one that got the probed port as its
 * own would connect to itself (TCP simultaneous open), hear its own request
 * and take the port from the proxy.
 */
export async function portBelowEphemeral(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: the usual range
  }
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export type ProbeOutcome =
  | { kind: 'refused' }
  | { kind: 'answered'; status: number; retryAfter: string | null; body: string; ms: number }
  | { kind: 'reset'; code: string; ms: number }
  | { kind: 'held'; connected: boolean; sent: number };

function probe(port: number, path: string, holdMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const started = performance.now();
    let text = '';
    let connected = false;
    const done = (o: ProbeOutcome): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => done({ kind: 'held', connected, sent: socket.bytesWritten }), holdMs);
    socket.on('connect', () => {
      connected = true;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected && err.code === 'ECONNREFUSED') done({ kind: 'refused' });
      else if (text === '') done({ kind: 'reset', code: err.code ?? 'unknown', ms: performance.now() - started });
    });
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      if (split < 0)
        return done({
          kind: 'reset',
          code: text === '' ? 'closed without an answer' : 'cut answer',
          ms: performance.now() - started,
        });
      const head = text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      done({
        kind: 'answered',
        status,
        retryAfter: /\r\nretry-after: *([^\r]*)/i.exec(head)?.[1] ?? null,
        body: text.slice(split + 4),
        ms: performance.now() - started,
      });
    });
  });
}

export interface StartupTally {
  refused: number;
  /** 503 answers sent before the server was ready. */
  starting: number;
  /** Answers of the ready server. */
  ready: number;
  /** Held or reset: what must never happen. */
  unanswered: ProbeOutcome[];
  /** Answers that are neither (a wrong status or body). */
  wrong: ProbeOutcome[];
  /** Slowest answer (ms). */
  slowestMs: number;
}

const STARTING_BODY = '{"code":5033,"msg":"not ready: starting up","data":null}';

/**
 * Opens a connection every `everyMs` until `stop()` resolves, then waits for
 * every answer. `ready(o)`: whether an answer is the ready server's.
 */
export async function probeThroughout(
  port: number,
  path: string,
  stop: Promise<unknown>,
  o: { everyMs: number; holdMs: number; ready: (status: number) => boolean },
): Promise<StartupTally> {
  const all: Promise<ProbeOutcome>[] = [];
  let stopped = false;
  const halt = (): void => void (stopped = true);
  void stop.then(halt, halt);
  while (!stopped) {
    all.push(probe(port, path, o.holdMs));
    await new Promise((r) => setTimeout(r, o.everyMs));
  }
  const t: StartupTally = { refused: 0, starting: 0, ready: 0, unanswered: [], wrong: [], slowestMs: 0 };
  for (const r of await Promise.all(all)) {
    if (r.kind === 'answered') t.slowestMs = Math.max(t.slowestMs, r.ms);
    if (r.kind === 'refused') t.refused++;
    else if (r.kind !== 'answered') t.unanswered.push(r);
    else if (r.status === 503 && r.retryAfter === '1' && r.body === STARTING_BODY) t.starting++;
    else if (o.ready(r.status)) t.ready++;
    else t.wrong.push(r);
  }
  return t;
}
