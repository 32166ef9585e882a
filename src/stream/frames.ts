/**
 * Server-sent event framing (WHATWG HTML, "Server-sent events"): each frame is
 * made once and its bytes shared by every subscriber.
 */

/** One event: `id:` then `data:` (the JSON has no newline, so one data line). */
export function eventFrame(id: number, json: string): Buffer {
  return Buffer.from(`id: ${id}\ndata: ${json}\n\n`);
}

/** A named event (EventSource `addEventListener(type)`, not `onmessage`). */
function typedFrame(type: string, id: number, json: string): Buffer {
  return Buffer.from(`event: ${type}\nid: ${id}\ndata: ${json}\n\n`);
}

/**
 * `rebase`: heights above `height` the client got are no longer believed
 * (discard them); events go on from `height + 1`. Its id is `height`.
 */
export function rebaseFrame(height: number, from: number, final: number | null, time: number): Buffer {
  return typedFrame('rebase', height, `{"height":${height},"from":${from},"final_height":${final},"time":${time}}`);
}

/**
 * `gap`: the heights `from`..`to` are not in the history (fetch them from
 * block/list if needed); events go on above `to`. Its id is `to`.
 */
export function gapFrame(from: number, to: number): Buffer {
  return typedFrame('gap', to, `{"from":${from},"to":${to}}`);
}

/** The reconnection delay hint. */
export function retryFrame(ms: number): Buffer {
  return Buffer.from(`retry: ${ms}\n\n`);
}

/** A comment line: ignored by EventSource, keeps intermediaries from timing the connection out. */
export const HEARTBEAT_FRAME = Buffer.from(': heartbeat\n\n');

/** The opening comment, sent with the headers so clients see the stream is live at once. */
export const OPEN_FRAME = Buffer.from(': chainproxy head stream\n\n');
