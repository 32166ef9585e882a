/**
 * A small SSE client over a real socket (node:http), parsing frames as the
 * WHATWG EventSource does: `id:`, `data:`, `retry:` fields, `:` comments,
 * blank line ends an event. Tests wait on conditions, never on sleeps.
 */
import { request, type IncomingMessage } from 'node:http';
import { LEAST_WAIT_MS } from '../helpers/until.js';

export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  type: string;
  id: string | null;
  data: string;
}

export interface HeadData {
  height: number;
  final_height: number | null;
  time: number;
  block: Record<string, unknown> | null;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  comments: string[];
  retry: number | null;
  /** Raw text of an error answer (non-200). */
  body: string;
  ended: boolean;
  /** Resolves when pred holds (checked after every chunk), rejects after max(ms, LEAST_WAIT_MS). */
  until(pred: () => boolean, ms?: number, what?: string): Promise<void>;
  /** Heights of the head events (`message`), in arrival order. */
  heights(): number[];
  /** Events of another type (`rebase`, `gap`). */
  typed(type: string): SseEvent[];
  close(): void;
}

export function openStream(
  base: string,
  opts: { lastEventId?: string; headers?: Record<string, string>; query?: string; path?: string } = {},
): Promise<SseClient> {
  const url = new URL(`${base}${opts.path ?? '/stream/heads'}${opts.query ?? ''}`);
  const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const waiters = new Set<() => void>();
      const c: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        retry: null,
        body: '',
        ended: false,
        until(pred, ms = LEAST_WAIT_MS, what = 'condition') {
          if (pred()) return Promise.resolve();
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () => {
                waiters.delete(check);
                fail(new Error(`timed out waiting for ${what}; events ${JSON.stringify(c.heights())}`));
              },
              Math.max(ms, LEAST_WAIT_MS),
            );
            const check = (): void => {
              if (!pred()) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            waiters.add(check);
          });
        },
        heights: () => c.events.filter((e) => e.type === 'message').map((e) => (JSON.parse(e.data) as HeadData).height),
        typed: (type) => c.events.filter((e) => e.type === type),
        close: () => {
          req.destroy();
        },
      };
      let buf = '';
      let id: string | null = null;
      let type = 'message';
      let data: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (c.status !== 200) {
          c.body += chunk;
        } else {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (data.length > 0) c.events.push({ type, id, data: data.join('\n') });
              id = null;
              type = 'message';
              data = [];
            } else if (line.startsWith(':')) c.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) type = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith('retry: ')) c.retry = Number(line.slice(7));
          }
        }
        for (const w of [...waiters]) w();
      });
      const end = (): void => {
        c.ended = true;
        for (const w of [...waiters]) w();
      };
      res.on('end', end);
      res.on('close', end);
      resolve(c);
    });
    req.end();
  });
}

export const headOf = (e: SseEvent): HeadData => JSON.parse(e.data) as HeadData;
