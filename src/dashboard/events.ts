/**
 * Events of the status page, found by comparing two registry readings (an
 * upstream going down, new upstream errors, 5xx answers, shedding, 429s...),
 * kept in a bounded log and shown grouped by kind with counts.
 */
import type { Reading } from './reading.js';

export type Severity = 'bad' | 'warn' | 'ok';

export interface EventRecord {
  t: number;
  kind: string;
  severity: Severity;
  n: number;
}

export interface EventGroup {
  kind: string;
  severity: Severity;
  count: number;
  first: number;
  last: number;
}

/**
 * Events between two readings taken at `t`. `everUp` holds the upstreams seen
 * up so far (updated here): one coming up for the first time, at start, is
 * no event.
 */
export function eventsBetween(before: Reading, after: Reading, t: number, everUp: Set<string>): EventRecord[] {
  const out: EventRecord[] = [];
  const add = (kind: string, severity: Severity, n: number): void => {
    if (n > 0) out.push({ t, kind, severity, n });
  };
  for (const [name, u] of Object.entries(after.upstreams)) {
    const was = before.upstreams[name];
    if (was === undefined) continue;
    if (was.up === 1 && u.up === 0) add(`upstream ${name} down`, 'bad', 1);
    if (was.up === 0 && u.up === 1 && everUp.has(name)) add(`upstream ${name} up again`, 'ok', 1);
    if (u.up === 1) everUp.add(name);
    if (was.lagging === 0 && u.lagging === 1) add(`upstream ${name} lagging`, 'warn', 1);
    if (was.breakerOpen === 0 && u.breakerOpen === 1) add(`upstream ${name} breaker open`, 'bad', 1);
    add(`upstream ${name} benched (sits out)`, 'bad', u.sitOuts - was.sitOuts);
    for (const [outcome, count] of Object.entries(u.outcomes)) {
      if (outcome === 'ok' || outcome === 'cancelled') continue;
      add(`upstream ${name}: ${outcome.replace('_', ' ')}`, 'warn', count - (was.outcomes[outcome] ?? 0));
    }
  }
  if (before.redisUp === 1 && after.redisUp === 0) add('Redis down', 'bad', 1);
  if (before.redisUp === 0 && after.redisUp === 1) add('Redis up again', 'ok', 1);
  add('5xx answers', 'bad', (after.byStatus['5xx'] ?? 0) - (before.byStatus['5xx'] ?? 0));
  add('shed (503, upstream queues full)', 'bad', after.shed - before.shed);
  add('rate limited (429)', 'warn', after.rateLimited - before.rateLimited);
  add('unknown API key (401)', 'warn', after.unknownKeys - before.unknownKeys);
  add('miss budget spent (429, code 4292)', 'warn', after.missBudgetRefused - before.missBudgetRefused);
  add('upstreams disagreed on a final answer', 'bad', after.quorumDisputes - before.quorumDisputes);
  add('streams refused', 'warn', after.streamsRefused - before.streamsRefused);
  add('passthrough failures', 'warn', after.passthroughFailures - before.passthroughFailures);
  add('head rebased (followed the upstreams down)', 'warn', after.rebases - before.rebases);
  return out;
}

/**
 * Events counted per kind and minute for the last `minutes` minutes: bounded
 * by the number of kinds (label values are bounded), whatever the event rate.
 */
export class EventLog {
  private readonly kinds = new Map<
    string,
    { severity: Severity; minutes: Array<{ minute: number; count: number; first: number; last: number }> }
  >();

  constructor(private readonly minutes: number) {}

  add(records: readonly EventRecord[]): void {
    for (const r of records) {
      const minute = Math.floor(r.t / 60_000);
      let k = this.kinds.get(r.kind);
      if (k === undefined) this.kinds.set(r.kind, (k = { severity: r.severity, minutes: [] }));
      const cur = k.minutes[k.minutes.length - 1];
      if (cur !== undefined && cur.minute === minute) {
        cur.count += r.n;
        cur.last = r.t;
      } else k.minutes.push({ minute, count: r.n, first: r.t, last: r.t });
      while ((k.minutes[0]?.minute ?? minute) <= minute - this.minutes) k.minutes.shift();
    }
  }

  /** Kinds seen since `since` (counted by whole minutes), the most recent first. */
  grouped(since: number): EventGroup[] {
    const out: EventGroup[] = [];
    for (const [kind, k] of this.kinds) {
      const mine = k.minutes.filter((m) => m.last >= since);
      if (mine.length === 0) continue;
      out.push({
        kind,
        severity: k.severity,
        count: mine.reduce((a, m) => a + m.count, 0),
        first: mine[0]!.first,
        last: mine[mine.length - 1]!.last,
      });
    }
    return out.sort((a, b) => b.last - a.last);
  }
}
