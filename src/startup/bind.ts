/**
 * PORT is bound before anything else starts (simulator, Redis, upstream
 * probes): a busy port stops start-up with one line and nothing to undo. The
 * bound socket is then handed to the HTTP server, so the port is never free in
 * between. Until then the kernel completes connections on it: they are taken
 * by a small HTTP server of their own that answers every request with
 * `notReady` (a 503 envelope) and closes, so a request during start-up is
 * answered at once, never held. After the hand-over new connections go to the
 * real server; those taken before finish here.
 */
import { createServer, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';

/** `listen({ handle })` accepts a bound server's handle (net.Server#listen). */
interface BoundPort {
  handle: object;
}

export type BindResult = { ok: true; bound: BoundPort } | { ok: false; message: string };

/** What the port answers before the server is ready. */
export interface EarlyAnswer {
  /** Every request: the answer, with `Connection: close`. */
  request: RequestListener;
  /** A connection whose request cannot be parsed or does not arrive in time: a whole HTTP response text. */
  raw: string;
  headersTimeoutMs: number;
}

function reason(code: string | undefined, port: number, host: string): string {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is in use; set PORT`;
    case 'EACCES':
      return `port ${port} needs privileges this process lacks; set PORT (1024 or above)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address of this machine (${code}); set HOST`;
    default:
      return `cannot listen on ${host}:${port} (${code ?? 'unknown error'}); check PORT and HOST`;
  }
}

export function bindPort(port: number, host: string, early: EarlyAnswer): Promise<BindResult> {
  return new Promise((resolve) => {
    const server = createServer(
      { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(early.headersTimeoutMs / 4))) },
      early.request,
    );
    server.headersTimeout = early.headersTimeoutMs;
    server.requestTimeout = 2 * early.headersTimeoutMs;
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      socket.end(early.raw);
      setTimeout(() => socket.destroy(), 1000).unref();
    });
    server.once('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, message: reason(err.code, port, host) }));
    server.listen({ port, host }, () => {
      // The handle belongs to whoever listens on it next; this server only finishes what it took.
      const handle = (server as unknown as { _handle: object })._handle;
      resolve({ ok: true, bound: { handle } });
    });
  });
}

/**
 * Whether PORT can be listened on, without keeping it (the cluster primary,
 * WORKERS > 1: its workers listen on it through node:cluster). A busy port
 * stops start-up with the same one line as bindPort.
 */
export function checkPort(port: number, host: string): Promise<{ ok: true } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    const server = createTcpServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, message: reason(err.code, port, host) }));
    server.listen({ port, host }, () => server.close(() => resolve({ ok: true })));
  });
}
