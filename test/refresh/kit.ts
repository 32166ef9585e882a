/** Requests and entries for the refresh engine's unit tests. */
import { buildCatalogue } from '../../src/catalogue/index.js';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import type { CanonicalRequest, EndpointName } from '../../src/catalogue/types.js';
import type { CacheEntry } from '../../src/cache/types.js';
import type { TouchedSet } from '../../src/chain/touched.js';

const catalogue = buildCatalogue();
const limits = { maxPageSize: 100, maxDays: 365 };

export const req = (name: EndpointName, query = ''): CanonicalRequest =>
  canonicalize(catalogue.get(name), query, limits);

/** The entry of `r` kept by `tags` (only what the board and the engine read). */
export const entryOf = (r: CanonicalRequest, tags: readonly string[] = [], composed = false): CacheEntry =>
  ({
    key: r.key,
    deps: { tags, watchFinal: null },
    ...(composed ? { composed: { parts: [], staleParts: [] } } : {}),
  }) as unknown as CacheEntry;

/** A complete block naming `addresses`. */
export const blockNaming = (height: number, addresses: readonly string[]): TouchedSet => ({
  height,
  blockHash: `h${height}`,
  addresses,
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete: true,
});
