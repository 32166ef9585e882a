/**
 * Answers fetched again unchanged, by endpoint and what ended the entry each
 * replaced (`endedBy`), in head mode (INVALIDATION_MODE=head), which has no
 * invalidation metrics: shown on /status beside the mode, as precise mode's
 * `unchangedRefetches` (nothing is named there: `head`, `ttl` or `other`).
 */
import type { Ended } from './earned.js';

type UnchangedByEnded = Record<string, Partial<Record<Ended, number>>>;

export class UnchangedCount {
  readonly #by: UnchangedByEnded = {};

  readonly unchanged = (endpoint: string, ended: Ended): void => {
    const by = (this.#by[endpoint] ??= {});
    by[ended] = (by[ended] ?? 0) + 1;
  };

  snapshot(): UnchangedByEnded {
    return Object.fromEntries(Object.entries(this.#by).map(([k, v]) => [k, { ...v }]));
  }
}
