/**
 * PORT is bound before anything else starts (simulator, Redis, upstream
 * probes): a busy port stops start-up with one line and nothing to undo. The
 * bound socket is then handed to the HTTP server, so the port is never free
 * in between.
 */
import { createServer } from 'node:net';

/** `listen({ handle })` accepts a bound server's handle (net.Server#listen). */
interface BoundPort {
  handle: object;
}

export type BindResult = { ok: true; bound: BoundPort } | { ok: false; message: string };

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

export function bindPort(port: number, host: string): Promise<BindResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, message: reason(err.code, port, host) }));
    server.listen({ port, host }, () => {
      // The handle now belongs to whoever listens on it next; this server is never used again.
      const handle = (server as unknown as { _handle: object })._handle;
      resolve({ ok: true, bound: { handle } });
    });
  });
}
