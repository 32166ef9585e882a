/**
 * One HTTP/1.1 request through node:http, for what fetch and undici will not
 * send: a chosen `Host` header, a chosen local (client) address. Answers the
 * status, the headers and the body as text.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface Asked {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface AskOptions {
  method?: string;
  headers?: Record<string, string>;
  /** The client address to connect from (127.0.0.2: another loopback client). */
  localAddress?: string;
}

export function ask(base: string, path: string, o: AskOptions = {}): Promise<Asked> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: o.method ?? 'GET',
        headers: o.headers ?? {},
        agent: false,
        ...(o.localAddress !== undefined ? { localAddress: o.localAddress } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
