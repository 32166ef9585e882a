/**
 * The `creditCosts` section of CONFIG_FILE: credit prices of X-API-Key
 * requests per endpoint (`tx/list`) or page (`pages/home`), each
 * `{ hit?, miss? }` over CREDITS_HIT_COST / CREDITS_MISS_COST. Pages must
 * exist (built in, or declared under `pages:`); checked once the whole file
 * is read (`unknownCostPages`).
 */
import { PAGES } from '../page-table/defaults.js';
import { ENDPOINT_NAMES } from '../catalogue/types.js';
import type { Config, CreditCosts } from './types.js';
import { shown } from './validate.js';

const PAGE = /^pages\/[A-Za-z0-9_-]{1,64}$/;
const MAX_COST = 1_000_000;

const cost = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_COST
    ? v
    : typeof v === 'string' && /^\d{1,7}$/.test(v.trim()) && Number(v) <= MAX_COST
      ? Number(v)
      : null;

export function checkCreditCosts(raw: unknown, label: string): { costs: CreditCosts; errors: string[] } {
  const costs: Record<string, { hit?: number; miss?: number }> = {};
  const errors: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      costs,
      errors: [`${label}: expected a map of endpoint or pages/<name> to { hit, miss }, got ${shown(raw)}`],
    };
  }
  for (const [name, body] of Object.entries(raw as Record<string, unknown>)) {
    const at = `${label}.${name}`;
    if (!(ENDPOINT_NAMES as readonly string[]).includes(name) && !PAGE.test(name)) {
      errors.push(`${at}: expected an endpoint name or pages/<page name>, got ${shown(name)}`);
      continue;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      errors.push(`${at}: expected a map { hit, miss }, got ${shown(body)}`);
      continue;
    }
    const prices: { hit?: number; miss?: number } = {};
    for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
      if (field !== 'hit' && field !== 'miss') {
        errors.push(`${at}.${field}: expected one of hit, miss, got an unknown key`);
        continue;
      }
      const n = cost(value);
      if (n === null) errors.push(`${at}.${field}: expected an integer from 0 to ${MAX_COST}, got ${shown(value)}`);
      else prices[field] = n;
    }
    costs[name] = prices;
  }
  return { costs, errors };
}

/** Pages priced in creditCosts that no page table declares. */
export function unknownCostPages(c: Config, label: string): string[] {
  return Object.keys(c.creditCosts)
    .filter((k) => k.startsWith('pages/') && !Object.hasOwn(PAGES, k.slice(6)) && !Object.hasOwn(c.pages, k.slice(6)))
    .map((k) => `${label}.${k}: expected a page of the built-in table or of pages:, got ${shown(k.slice(6))}`);
}
