import { buildCatalogue } from '../../src/catalogue/index.js';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import type { CanonicalRequest, EndpointName } from '../../src/catalogue/types.js';
import type { ParamLimits } from '../../src/endpoints/types.js';
import type { ChainView } from '../../src/chain/types.js';
import { ProxyError } from '../../src/errors/catalog.js';

export const limits: ParamLimits = { maxPageSize: 100, maxDays: 365 };
export const catalogue = buildCatalogue();

export function canon(name: EndpointName, query: string, lim: ParamLimits = limits): CanonicalRequest {
  return canonicalize(catalogue.get(name), query, lim);
}

export function keyOf(name: EndpointName, query: string): string {
  return canon(name, query).key;
}

/** The ProxyError thrown by canonicalizing, or a failure. */
export function errorOf(name: EndpointName, query: string, lim: ParamLimits = limits): ProxyError {
  try {
    canon(name, query, lim);
  } catch (e) {
    if (e instanceof ProxyError) return e;
    throw e;
  }
  throw new Error(`expected ${name}?${query} to be rejected`);
}

/** A ChainTracker-like stub. */
export function chainAt(head: number | null, final: number | null): ChainView {
  return { bestHead: () => head, finalHeight: () => final };
}

export const ADDR = 'n1zJjyWVKr8HiL1b6dN7JGBtCZFuKQHenLG';
export const HASH = 'eb3c8d848679ad1786d5986da48bcc5d5732141fd6fccde0a9a3bfd78ae1d970';
