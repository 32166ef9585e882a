/**
 * Who pays for the upstream work a request causes. The pipeline calls `lead`
 * just before a request starts an upstream fetch (joining a flight under way,
 * and any cache hit, cost nothing); a client that cannot pay is refused with
 * BudgetSpent (429, code 4292) and nothing is fetched.
 */
import { EDGE_ERRORS, ProxyError } from '../errors/catalog.js';

export interface MissPayer {
  /** Charges one upstream request for `endpoint`; throws BudgetSpent when the client's budget is spent. */
  lead(endpoint: string): void;
  /** Charges one more attempt (retry, hedge, confirmation) of a fetch it leads: false when it cannot pay. */
  extra(endpoint: string): boolean;
  /** The led fetch was filled by another replica (no upstream request here): the charge is given back. */
  refund(endpoint: string): void;
}

const SPENT = EDGE_ERRORS.MISS_BUDGET_SPENT;

/** The 429 of a request that would lead an upstream request beyond its client's budget. */
export class BudgetSpent extends ProxyError {
  override readonly code: number = SPENT.code;

  /** `retryMs`: until the budget allows one more. */
  constructor(readonly retryMs: number) {
    super('RATE_LIMITED', SPENT.msg);
  }
}

/** Retry-After (s) of a wait in ms: at least 1. */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));

/** Whether any outcome failed for want of budget (such a composition is not cached for others). */
export function unpaid(outcomes: readonly { error: { code: number } | null }[]): boolean {
  return outcomes.some((o) => o.error !== null && o.error.code === SPENT.code);
}
