/**
 * An activity resume this replica's own history cannot vouch for (the client
 * watched its entities on another replica), with Redis: the fleet's record of
 * touched sets (src/fleet/record.ts, the newest blocks read by any replica)
 * names the blocks since the resume point that touched the client's
 * entities; their transactions are read through the resolver (cached pages:
 * the block reader read them) and replayed, and this replica's own plan
 * follows from the height its history vouches for. A `gap` remains only for
 * heights the record does not cover without a hole.
 */
import type { TouchedSet } from '../../chain/touched.js';
import { gapFrame } from '../frames.js';
import type { StreamEvent } from '../history.js';
import type { ResumePlan } from '../resume.js';
import { activityFrame } from './frames.js';
import { blockRecord, type BlockRecord, type TxRecord } from './history.js';
import { planActivity, vouchedFrom, type ActivityResumeContext } from './resume.js';
import { txsNaming, type TxReader } from './txs.js';

/** The fleet's record of recent touched sets, by height (null: unavailable). */
export interface TouchedRecord {
  read(): Promise<TouchedSet[] | null>;
}

/**
 * Whether a resume after `after` needs the fleet's record: this replica's
 * history does not vouch for the heights after it, and no rebase applies.
 */
export function needsRecord(after: number | null, entities: ReadonlySet<string>, c: ActivityResumeContext): boolean {
  if (after === null || (c.head !== null && after > c.head) || c.history.rebases.rebaseFor(after) !== null)
    return false;
  return after + 1 < vouchedFrom(entities, c);
}

/** The recorded sets of heights `from`..`to` without a hole below `to` (the newest of each height). */
function covered(sets: readonly TouchedSet[], from: number, to: number): TouchedSet[] {
  const byHeight = new Map<number, TouchedSet>();
  for (const s of sets) byHeight.set(s.height, s);
  const out: TouchedSet[] = [];
  for (let h = to; h >= from; h--) {
    const s = byHeight.get(h);
    if (s === undefined) break;
    out.push(s);
  }
  return out.reverse();
}

/** Block `set`'s record for `entities` (null when it names none of them). */
async function recordOf(set: TouchedSet, entities: ReadonlySet<string>, reader: TxReader): Promise<BlockRecord | null> {
  const matched = new Set([...set.addresses, ...set.contracts].filter((e) => entities.has(e)));
  if (matched.size === 0) return null;
  let txs: TxRecord[] = [];
  let complete = set.complete;
  try {
    txs = await txsNaming(reader, set.height, matched);
  } catch {
    txs = [];
    complete = false;
  }
  return blockRecord(set, matched, txs, complete);
}

/** The plan of a resume after `after` with the fleet's record (the local plan when the record is unavailable). */
export async function planFromRecord(
  after: number,
  entities: ReadonlySet<string>,
  c: ActivityResumeContext,
  record: TouchedRecord,
  reader: TxReader,
): Promise<ResumePlan> {
  const whole = vouchedFrom(entities, c);
  const sets = await record.read();
  const found = sets === null ? [] : covered(sets, after + 1, whole - 1);
  if (found.length === 0) return planActivity(after, entities, c);
  const first = found[0]!.height;
  const replay: StreamEvent[] = [];
  if (after + 1 < first) replay.push({ height: first - 1, frame: gapFrame(after + 1, first - 1), marker: true });
  for (const set of found) {
    const r = await recordOf(set, entities, reader);
    if (r !== null) replay.push({ height: r.height, frame: activityFrame(r, r.matched) });
  }
  const own = planActivity(whole - 1, entities, c);
  return { replay: [...replay, ...own.replay], last: own.last };
}
