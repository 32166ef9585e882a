/**
 * Server-sent event framing (WHATWG HTML, "Server-sent events"): each frame is
 * made once and its bytes shared by every subscriber.
 */

/** One event: `id:` then `data:` (the JSON has no newline, so one data line). */
export function eventFrame(id: number, json: string): Buffer {
  return Buffer.from(`id: ${id}\ndata: ${json}\n\n`);
}

/** The reconnection delay hint. */
export function retryFrame(ms: number): Buffer {
  return Buffer.from(`retry: ${ms}\n\n`);
}

/** A comment line: ignored by EventSource, keeps intermediaries from timing the connection out. */
export const HEARTBEAT_FRAME = Buffer.from(': heartbeat\n\n');

/** The opening comment, sent with the headers so clients see the stream is live at once. */
export const OPEN_FRAME = Buffer.from(': chainproxy head stream\n\n');

/**
 * The height a client resumes after: `Last-Event-ID` header (what EventSource
 * sends on reconnect), else the `lastEventId` query parameter. null when absent
 * or not a non-negative integer.
 */
export function resumeHeight(header: string | string[] | undefined, rawUrl: string): number | null {
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const raw = fromHeader !== undefined && fromHeader !== '' ? fromHeader : queryValue(rawUrl, 'lastEventId');
  if (raw === null || !/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

function queryValue(rawUrl: string, name: string): string | null {
  const q = rawUrl.indexOf('?');
  if (q < 0) return null;
  for (const part of rawUrl.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq) === name) return decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
  }
  return null;
}
