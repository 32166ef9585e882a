/**
 * Who gave a restart window's stale answers (bench (l)): a new process before
 * the bench saw its /readyz 200, the same in its first `youngMs` after it, or
 * any other replica (the ones not restarted lately, the old ones draining).
 * For the control fleet, the same replica slots over the same moments.
 */
import type { Judged } from '../oracle/driver.js';
import type { Restarted } from './stack.js';

export interface Count {
  answers: number;
  stale: number;
  /** Stale answers per endpoint. */
  byEndpoint: Map<string, number>;
  /** Client latencies, ms. */
  ms: number[];
}

export interface ByAge {
  /** Answered by a new process before its /readyz said 200. */
  unready: Count;
  /** Answered by a new process within `youngMs` of its /readyz 200. */
  young: Count;
  rest: Count;
}

const zero = (): Count => ({ answers: 0, stale: 0, byEndpoint: new Map(), ms: [] });

/** Several windows' counts as one. */
export function pooled(all: readonly ByAge[]): ByAge {
  const out: ByAge = { unready: zero(), young: zero(), rest: zero() };
  for (const b of all)
    for (const k of ['unready', 'young', 'rest'] as const) {
      const o = out[k];
      o.answers += b[k].answers;
      o.stale += b[k].stale;
      o.ms.push(...b[k].ms);
      for (const [e, n] of b[k].byEndpoint) o.byEndpoint.set(e, (o.byEndpoint.get(e) ?? 0) + n);
    }
  return out;
}

export function byAge(judged: readonly Judged[], restarts: readonly Restarted[], youngMs: number): ByAge {
  const out: ByAge = { unready: zero(), young: zero(), rest: zero() };
  for (const a of judged) {
    const r = restarts.find((x) => x.upstream === a.upstream && a.at >= x.exited && a.at < x.ready + youngMs);
    const c = r === undefined ? out.rest : a.at < r.ready ? out.unready : out.young;
    c.answers++;
    c.ms.push(a.ms);
    if (!a.stale) continue;
    c.stale++;
    c.byEndpoint.set(a.endpoint, (c.byEndpoint.get(a.endpoint) ?? 0) + 1);
  }
  return out;
}

const pct = (c: Count): string => (c.answers === 0 ? '–' : `${((c.stale / c.answers) * 100).toFixed(2)} %`);

const p50 = (xs: readonly number[]): string =>
  xs.length === 0 ? '–' : `${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1)} ms`;

const endpoints = (c: Count): string =>
  [...c.byEndpoint]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([e, n]) => `${e} ${n}`)
    .join(', ');

/**
 * "new process first 10 s 9/600 (1.50 %; p50 2.1 ms; tx/list 4, block/max 3), others ...";
 * `control`: the same slots of a fleet not restarted.
 */
export function byAgeLine(b: ByAge, youngMs: number, control = false): string {
  const one = (name: string, c: Count): string =>
    `${name} ${c.stale}/${c.answers} (${pct(c)}; p50 ${p50(c.ms)}${c.stale > 0 ? `; ${endpoints(c)}` : ''})`;
  const [unready, young] = control
    ? [
        'its same replica while the restarted one was not ready',
        `the same in the restarted one's first ${youngMs / 1000} s`,
      ]
    : ['new process before /readyz 200', `new process first ${youngMs / 1000} s`];
  return [one(unready, b.unready), one(young, b.young), one('others', b.rest)].join(', ');
}
