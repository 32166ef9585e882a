/** A raw TCP client for edge tests: what a socket received, and when it closed. */
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  socket: Socket;
  /** Resolves with everything received once the server closes the connection. */
  closed: Promise<{ text: string; ms: number }>;
  received(): string;
}

/** `localAddress`: the client address to connect from (127.0.0.2: another loopback client). */
export function rawConnect(base: string, send: string, localAddress?: string): RawExchange {
  const u = new URL(base);
  const socket = connect({
    host: u.hostname,
    port: Number(u.port),
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  const started = performance.now();
  let text = '';
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<{ text: string; ms: number }>((resolve) =>
    socket.on('close', () => resolve({ text, ms: performance.now() - started })),
  );
  socket.on('connect', () => {
    if (send !== '') socket.write(send);
  });
  return { socket, closed, received: () => text };
}

/** Status code and JSON body of a raw HTTP/1.1 response. */
export function parseRaw(text: string): { status: number; headers: string; body: unknown } {
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const rest = split < 0 ? '' : text.slice(split + 4);
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    body = rest;
  }
  return { status, headers: head.toLowerCase(), body };
}
