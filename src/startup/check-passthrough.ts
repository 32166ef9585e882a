/**
 * `--check` of the PASSTHROUGH backends: a connection to each route's target
 * (TCP, and the TLS handshake for https://), nothing sent. One line per route.
 */
import { connect as tcp, type Socket } from 'node:net';
import { connect as tls } from 'node:tls';
import { withoutCredentials } from '../common/shown-url.js';
import type { PassthroughRoute } from '../config/types.js';

export interface CheckVerdict {
  ok: boolean;
  line: string;
}

function failure(code: string | undefined, hostPort: string, message: string): string {
  if (code === 'ECONNREFUSED')
    return `connection refused by ${hostPort}. Hint: nothing is listening there: wrong port, or the backend is down`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `DNS: unknown host ${hostPort}. Hint: check the host name in PASSTHROUGH`;
  return `${message}. Hint: check the URL in PASSTHROUGH and the network in between`;
}

/** Connects to the target of `route` within `timeoutMs`. */
export function checkPassthrough(route: PassthroughRoute, timeoutMs: number): Promise<CheckVerdict> {
  const u = new URL(route.target);
  const secure = u.protocol === 'https:';
  const port = Number(u.port || (secure ? 443 : 80));
  const hostPort = `${u.hostname}:${port}`;
  const name = `passthrough ${route.prefix} -> ${withoutCredentials(route.target)}`;
  const started = performance.now();
  return new Promise((resolve) => {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const socket: Socket = secure
      ? tls({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host })
      : tcp({ host, port });
    const done = (v: CheckVerdict): void => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(timeoutMs, () =>
      done({ ok: false, line: `FAILED ${name}: no connection to ${hostPort} within ${timeoutMs} ms` }),
    );
    socket.once(secure ? 'secureConnect' : 'connect', () =>
      done({ ok: true, line: `ok     ${name}: connected (${Math.round(performance.now() - started)} ms)` }),
    );
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, line: `FAILED ${name}: ${failure(err.code, hostPort, err.message)}` }),
    );
  });
}
