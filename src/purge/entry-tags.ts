/**
 * The purge tags of a cache entry, derived from its key and its endpoint
 * module's `dependsOn` (so entries without `deps`, in head mode or from an
 * older replica, have them too): `address:<id>` for an address or contract
 * parameter, `token:<name>`, and `height:<n>` for the block a `finality`
 * dependency names (its parameter, or the field of the answer's data, read
 * from the stored bytes). Remembered per entry object, so an entry is derived
 * at most once.
 */
import type { CacheEntry } from '../cache/types.js';
import type { Catalogue } from '../catalogue/index.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { ParamLimits } from '../endpoints/types.js';
import { tagOfAddress, tagOfToken } from '../invalidation/tags.js';
import { locate, numberAt, stringAt } from '../transform/json-scan.js';
import { isPassKey, passTags } from '../passthrough/purge-tags.js';

export const tagOfHeight = (height: string): string => `height:${height}`;

const NONE: readonly string[] = Object.freeze([]);

/** A canonical block height (digits, no leading zero), or null. */
function heightText(v: string | number | null | undefined): string | null {
  const n = typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? String(n) : null;
}

/** `data[field]` of a stored answer, a number or a numeric string, or null. */
function dataField(body: Buffer, field: string): string | null {
  const r = locate(body, ['data', field]);
  if (r === null) return null;
  return heightText(numberAt(body, r) ?? stringAt(body, r));
}

function startsWithAny(key: string, prefixes: readonly string[]): boolean {
  for (let i = 0; i < prefixes.length; i++) if (key.startsWith(prefixes[i]!)) return true;
  return false;
}

export class EntryTags {
  readonly #catalogue: Catalogue;
  readonly #limits: ParamLimits;
  readonly #known = new WeakMap<CacheEntry, readonly string[]>();
  /** `<endpoint>?` of the endpoints whose block is a parameter, and of those whose block is a field of the answer. */
  readonly #heightByParam: readonly string[];
  readonly #heightByField: readonly string[];

  constructor(catalogue: Catalogue, limits: ParamLimits) {
    this.#catalogue = catalogue;
    this.#limits = limits;
    const finality = (byParam: boolean) =>
      catalogue
        .all()
        .filter((e) => e.module?.dependsOn.some((d) => d.on === 'finality' && 'param' in d === byParam) === true)
        .map((e) => `${e.name}?`);
    this.#heightByParam = finality(true);
    this.#heightByField = finality(false);
  }

  of(entry: CacheEntry): readonly string[] {
    let tags = this.#known.get(entry);
    if (tags === undefined) {
      tags = this.#derive(entry);
      this.#known.set(entry, tags);
    }
    return tags;
  }

  /**
   * A test of whether an entry carries `tag`, for walking a whole tier: an
   * address or token tag names its value in the key, and a height tag only
   * endpoints with a `finality` dependency (its value in the key too when
   * that is a parameter), so most entries are told apart without deriving.
   */
  matcher(tag: string): (entry: CacheEntry) => boolean {
    const value = tag.slice(tag.indexOf(':') + 1);
    const carries = (e: CacheEntry): boolean => this.of(e).includes(tag);
    if (!tag.startsWith('height:')) return (e) => e.key.includes(value) && carries(e);
    const inKey = `=${value}`;
    return (e) =>
      ((startsWithAny(e.key, this.#heightByParam) && e.key.includes(inKey)) ||
        startsWithAny(e.key, this.#heightByField)) &&
      carries(e);
  }

  #derive(entry: CacheEntry): readonly string[] {
    if (entry.composed !== undefined) return NONE;
    if (isPassKey(entry.key)) return passTags(entry.key);
    const q = entry.key.indexOf('?');
    const def = this.#catalogue.match(`/${q < 0 ? entry.key : entry.key.slice(0, q)}`);
    const deps = def?.module?.dependsOn;
    if (def === undefined || deps === undefined) return NONE;
    let params: ReadonlyMap<string, string>;
    try {
      params = canonicalize(def, q < 0 ? '' : entry.key.slice(q + 1), this.#limits).params;
    } catch {
      return NONE;
    }
    const out: string[] = [];
    for (const d of deps) {
      if (d.on === 'address' || d.on === 'contract' || d.on === 'token') {
        const v = params.get(d.param);
        if (v !== undefined) out.push(d.on === 'token' ? tagOfToken(v) : tagOfAddress(v));
      } else if (d.on === 'finality') {
        const h = 'param' in d ? heightText(params.get(d.param)) : dataField(entry.body, d.field);
        if (h !== null) out.push(tagOfHeight(h));
      }
    }
    return out.length === 0 ? NONE : out;
  }
}
