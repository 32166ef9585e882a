/**
 * Retry layer: after a retryable failure, dispatch again (the base dispatch
 * prefers an upstream not yet tried), while the plan has attempts and time
 * left. Non-retryable errors, an exhausted budget, or a round that could not
 * launch any attempt end the loop with the most informative error.
 */
import type { ProxyError } from '../errors/catalog.js';
import { budgetLeft, type Layer, type Plan } from './dispatch.js';

export interface RetryOptions {
  onRetry?: (plan: Plan) => void;
}

export function retryLayer(o: RetryOptions = {}): Layer {
  return (next) => async (plan, signal) => {
    let lastLaunched: ProxyError | null = null;
    for (;;) {
      const before = plan.tried.length;
      try {
        return await next(plan, signal);
      } catch (e) {
        const err = e as ProxyError; // every layer below rejects only with ProxyError
        const launched = plan.tried.length > before;
        if (!launched) throw lastLaunched ?? err;
        lastLaunched = err;
        if (!err.retryable || !budgetLeft(plan)) throw err;
        o.onRetry?.(plan);
      }
    }
  };
}
