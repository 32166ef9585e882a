/**
 * Event-driven waits: a condition checked now and again on each event that
 * can change it, never polled. A wait's deadline only turns a hang into a
 * failure; it is not what a test measures.
 */
import type { ChainTracker } from '../../src/chain/tracker.js';

/**
 * The least time a wait gives its condition. On a loaded machine (several
 * test workers on two cores) a condition that takes milliseconds alone can
 * take seconds.
 */
export const LEAST_WAIT_MS = 20_000;

/** What the waits listen to: a Node EventEmitter, typed or not. */
interface Emitter {
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
}

/** Where a wait listens: an emitter and the events of it that can change the condition. */
type Source = readonly [emitter: Emitter, events: string | readonly string[]];

/**
 * Resolves when `predicate` holds, checked now and after each event of
 * `sources`; fails after max(timeoutMs, 20 s) naming `what`.
 */
export function untilAny(
  sources: readonly Source[],
  predicate: () => boolean,
  what = 'condition',
  timeoutMs = LEAST_WAIT_MS,
): Promise<void> {
  if (predicate()) return Promise.resolve();
  const each = sources.flatMap(([emitter, events]) =>
    (typeof events === 'string' ? [events] : events).map((e) => [emitter, e] as const),
  );
  const limit = Math.max(timeoutMs, LEAST_WAIT_MS);
  return new Promise<void>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      for (const [emitter, e] of each) emitter.off(e, check);
    };
    const check = (): void => {
      if (!predicate()) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${limit} ms waiting for ${what}`));
    }, limit);
    for (const [emitter, e] of each) emitter.on(e, check);
  });
}

/** untilAny with one emitter. */
export function untilEmitted(
  emitter: Emitter,
  events: string | readonly string[],
  predicate: () => boolean,
  what = 'condition',
  timeoutMs = LEAST_WAIT_MS,
): Promise<void> {
  return untilAny([[emitter, events]], predicate, what, timeoutMs);
}

/** Resolves when the tracker's best head satisfies `holds` (checked on every head and rebase). */
export function untilHead(
  tracker: ChainTracker,
  holds: (head: number | null) => boolean,
  what = 'the head',
  timeoutMs?: number,
): Promise<void> {
  return untilEmitted(tracker, ['head', 'rebase'], () => holds(tracker.bestHead()), what, timeoutMs);
}

/** `promise`, or a failure naming `what` after max(timeoutMs, 20 s). */
export function within<T>(promise: Promise<T>, what: string, timeoutMs = LEAST_WAIT_MS): Promise<T> {
  const limit = Math.max(timeoutMs, LEAST_WAIT_MS);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${limit} ms waiting for ${what}`)), limit);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves when the tracker's final height reaches `height` (checked on every final and rebase). */
export function untilFinal(tracker: ChainTracker, height: number, timeoutMs?: number): Promise<void> {
  return untilEmitted(
    tracker,
    ['final', 'rebase'],
    () => (tracker.finalHeight() ?? -1) >= height,
    `block ${height} final`,
    timeoutMs,
  );
}
