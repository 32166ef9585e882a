/**
 * Where an activity subscriber starts. Without a resume point: from now (a
 * bare `id:` of the newest height seen, so even a quiet connection has a
 * resume point). With one: like the head stream (`rebase` when it is above
 * the believed head or was dropped by a rebase), then a `gap` for heights
 * the history cannot vouch for (evicted, or before one of the entities was
 * watched), then the kept blocks that name the subscriber's entities.
 */
import { gapFrame, rebaseFrame } from '../frames.js';
import type { StreamEvent } from '../history.js';
import type { ResumePlan } from '../resume.js';
import type { ActivityChannel } from './channel.js';
import { activityFrame, positionFrame } from './frames.js';
import type { ActivityHistory } from './history.js';

export interface ActivityResumeContext {
  history: ActivityHistory;
  channel: ActivityChannel;
  head: number | null;
  final: number | null;
  time: number;
}

/** The lowest height from which the history vouches for `entities`: all kept blocks, each entity watched since. */
export function vouchedFrom(entities: ReadonlySet<string>, c: ActivityResumeContext): number {
  const latest = c.history.height;
  let whole = c.history.wholeFrom < 0 ? latest + 1 : c.history.wholeFrom;
  for (const e of entities) whole = Math.max(whole, c.channel.since(e) ?? latest + 1);
  return whole;
}

export function planActivity(
  after: number | null,
  entities: ReadonlySet<string>,
  c: ActivityResumeContext,
): ResumePlan {
  const latest = c.history.height;
  const replay: StreamEvent[] = [];
  let base = after ?? latest;
  if (after !== null) {
    const r =
      c.head !== null && after > c.head
        ? latest >= 0
          ? { height: latest }
          : null
        : c.history.rebases.rebaseFor(after);
    if (r !== null && r.height < after) {
      base = r.height;
      replay.push({ height: base, frame: rebaseFrame(base, after, c.final, c.time), marker: true });
    }
    const whole = vouchedFrom(entities, c);
    if (base + 1 < whole) {
      replay.push({ height: whole - 1, frame: gapFrame(base + 1, whole - 1), marker: true });
      base = whole - 1;
    }
    for (const r of c.history.matching(base, entities))
      replay.push({ height: r.height, frame: activityFrame(r, intersect(r.matched, entities)) });
  }
  const last = Math.max(base, latest);
  const tail = replay[replay.length - 1]?.height ?? -1;
  if (last >= 0 && last > tail) replay.push({ height: last, frame: positionFrame(last), marker: true });
  return { replay, last };
}

function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const e of a) if (b.has(e)) out.add(e);
  return out;
}
