/**
 * Where a new subscriber starts: the resume point it sent (Last-Event-ID
 * header, else the `lastEventId` query parameter), checked before anything is
 * written; then what it is sent first (a `rebase` or `gap` event, the replay
 * from the history) and the height it stands at.
 */
import { ProxyError } from '../errors/catalog.js';
import { gapFrame, rebaseFrame } from './frames.js';
import type { EventHistory, StreamEvent } from './history.js';

const HEIGHT = /^\d{1,15}$/;

/**
 * The height a client resumes after: null when absent, a ProxyError (400,
 * naming the header or parameter) when it is not a block height.
 */
export function resumePoint(header: string | string[] | undefined, rawUrl: string): number | null | ProxyError {
  if (Array.isArray(header)) return new ProxyError('DUPLICATE_PARAMETER', 'duplicated header Last-Event-ID');
  if (header !== undefined && header.trim() !== '') {
    return HEIGHT.test(header.trim())
      ? Number(header.trim())
      : new ProxyError('BAD_PARAMETER', 'invalid header Last-Event-ID: expected a block height');
  }
  const values = queryValues(rawUrl, 'lastEventId');
  if (values.length > 1) return new ProxyError('DUPLICATE_PARAMETER', 'duplicated parameter lastEventId');
  const raw = values[0];
  if (raw === undefined || raw === '') return null;
  let text: string;
  try {
    text = decodeURIComponent(raw.replace(/\+/g, ' ')).trim();
  } catch {
    return new ProxyError('BAD_PARAMETER', 'invalid parameter lastEventId: malformed percent-encoding');
  }
  return HEIGHT.test(text)
    ? Number(text)
    : new ProxyError('BAD_PARAMETER', 'invalid parameter lastEventId: expected a block height');
}

function queryValues(rawUrl: string, name: string): string[] {
  const q = rawUrl.indexOf('?');
  if (q < 0) return [];
  const out: string[] = [];
  for (const part of rawUrl.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0 ? part === name : part.slice(0, eq) === name) out.push(eq < 0 ? '' : part.slice(eq + 1));
  }
  return out;
}

export interface ResumePlan {
  /** Frames to send first, oldest first. */
  replay: StreamEvent[];
  /** Height the subscriber stands at once the replay is sent (-1: none). */
  last: number;
}

export interface ResumeContext {
  history: EventHistory;
  /** The head the proxy believes, or null while unknown. */
  head: number | null;
  final: number | null;
  time: number;
}

/**
 * - No resume point: the newest head event.
 * - Above the believed head (a height this replica does not believe): a
 *   `rebase` to the newest event, then live.
 * - At or above a recent rebase's target but not past its old head: a `rebase`
 *   to its target, then the replay from there.
 * - Older than the history: a `gap` naming the heights not kept, then every
 *   kept event.
 */
export function planResume(after: number | null, c: ResumeContext): ResumePlan {
  if (after === null) {
    const newest = c.history.newest();
    return newest === undefined ? { replay: [], last: -1 } : { replay: [newest], last: newest.height };
  }
  const latest = c.history.latest();
  const first: StreamEvent[] = [];
  let base = after;
  if (c.head !== null && after > c.head) {
    base = latest?.height ?? c.head;
    first.push({ height: base, frame: rebaseFrame(base, after, c.final, c.time), marker: true });
  } else {
    const r = c.history.rebases.rebaseFor(after);
    if (r !== null) {
      base = r.height;
      first.push({ height: base, frame: rebaseFrame(base, after, c.final, c.time), marker: true });
    }
  }
  const oldest = c.history.oldest();
  if (oldest !== undefined && base < oldest.height - 1) {
    first.push({ height: oldest.height - 1, frame: gapFrame(base + 1, oldest.height - 1), marker: true });
  }
  const replay = [...first, ...c.history.after(base)];
  return { replay, last: Math.max(base, replay[replay.length - 1]?.height ?? -1) };
}
