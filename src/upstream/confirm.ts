/**
 * Confirmation layer: a negative answer (not found, client error) is believed
 * only when one other healthy, non-lagging upstream, asked once, agrees, or
 * when there is no such upstream (or no attempt left). When the other upstream
 * has a good answer, that answer wins and the first upstream is charged a
 * failure: an upstream answering "not found" to everything fails over instead
 * of drawing traffic with its fast errors.
 */
import type { Dispatch, Layer } from './dispatch.js';
import { budgetLeft } from './dispatch.js';
import { isNegative } from '../transform/envelope.js';
import type { UpstreamResponse } from './types.js';

export interface ConfirmOptions {
  /** The base dispatch (one attempt, no retry or hedge). */
  base: Dispatch;
  /** Charges a failure to an upstream whose negative answer another contradicted. */
  contradicted: (upstream: string, by: string) => void;
}

export function confirmLayer(o: ConfirmOptions): Layer {
  return (next) => async (plan, signal, hints) => {
    const first = await next(plan, signal, hints);
    if (!isNegative(first.status, first.json) || !budgetLeft(plan)) return first;
    let second: UpstreamResponse;
    try {
      second = await o.base(plan, signal, { confirm: true });
    } catch {
      return first; // nobody else to ask, or the other failed: the first answer stands (short-lived)
    }
    if (isNegative(second.status, second.json)) return first;
    o.contradicted(first.upstream, second.upstream);
    return second;
  };
}
