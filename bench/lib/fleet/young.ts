/**
 * Who gave a restart window's stale answers (bench (l)): a new process before
 * the bench saw its /readyz 200, the same in its first `youngMs` after it, or
 * any other replica (the ones not restarted lately, the old ones draining).
 */
import type { Judged } from '../oracle/driver.js';
import type { Restarted } from './restart.js';

export interface Count {
  answers: number;
  stale: number;
}

export interface ByAge {
  /** Answered by a new process before its /readyz said 200. */
  unready: Count;
  /** Answered by a new process within `youngMs` of its /readyz 200. */
  young: Count;
  rest: Count;
}

const zero = (): Count => ({ answers: 0, stale: 0 });

export function byAge(judged: readonly Judged[], restarts: readonly Restarted[], youngMs: number): ByAge {
  const out: ByAge = { unready: zero(), young: zero(), rest: zero() };
  for (const a of judged) {
    const r = restarts.find((x) => x.upstream === a.upstream && a.at >= x.exited && a.at < x.ready + youngMs);
    const c = r === undefined ? out.rest : a.at < r.ready ? out.unready : out.young;
    c.answers++;
    if (a.stale) c.stale++;
  }
  return out;
}

const pct = (c: Count): string => (c.answers === 0 ? '–' : `${((c.stale / c.answers) * 100).toFixed(2)} %`);

/** "new before ready 2/40 (5.00 %), new first 10 s 9/600 (1.50 %), others 30/4000 (0.75 %)". */
export function byAgeLine(b: ByAge, youngMs: number): string {
  const one = (name: string, c: Count): string => `${name} ${c.stale}/${c.answers} (${pct(c)})`;
  return [
    one('new process before /readyz 200', b.unready),
    one(`new process first ${youngMs / 1000} s`, b.young),
    one('others', b.rest),
  ].join(', ');
}
