/**
 * The purge tags of a cache entry: the tags its answer carries in the
 * `Cache-Tag` header (src/invalidation/tags.ts `headerTags`; the vocabulary:
 * tag-vocabulary.ts), derived from its key and its endpoint module's
 * `dependsOn` (so entries without `deps`, in head mode or from an older
 * replica, have them too), the fields a dependency names read from the stored
 * bytes. Remembered per entry object, so an entry is derived at most once.
 */
import type { CacheEntry } from '../cache/types.js';
import type { Catalogue } from '../catalogue/index.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { Dependency, ParamLimits } from '../endpoints/types.js';
import { headerTags } from '../invalidation/tags.js';
import { locate, numberAt, stringAt } from '../transform/json-scan.js';
import { kindName, tagKind } from './tag-vocabulary.js';
import { isPassKey, passTags } from '../passthrough/purge-tags.js';

const NONE: readonly string[] = Object.freeze([]);

/** The fields of a stored answer's data that `deps` name (numbers or strings), as the header reads them. */
function dataFields(body: Buffer, deps: readonly Dependency[]): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const d of deps) {
    const field = 'field' in d ? d.field : undefined;
    if (field === undefined) continue;
    const r = locate(body, ['data', field]);
    const v = r === null ? null : (numberAt(body, r) ?? stringAt(body, r));
    if (v !== null) out[field] = v;
  }
  return out;
}

function startsWithAny(key: string, prefixes: readonly string[]): boolean {
  for (let i = 0; i < prefixes.length; i++) if (key.startsWith(prefixes[i]!)) return true;
  return false;
}

export class EntryTags {
  readonly #catalogue: Catalogue;
  readonly #limits: ParamLimits;
  readonly #known = new WeakMap<CacheEntry, readonly string[]>();

  constructor(catalogue: Catalogue, limits: ParamLimits) {
    this.#catalogue = catalogue;
    this.#limits = limits;
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
   * A test of whether an entry carries `tag`, for walking a whole tier: only
   * endpoints with a dependency the tag's kind comes from can, and an address
   * or token tag (a block's, when a parameter names it) has its value in the
   * key, so most entries are told apart without deriving.
   */
  matcher(tag: string): (entry: CacheEntry) => boolean {
    const name = kindName(tag);
    const from = tagKind(name)?.from ?? [];
    // A kind no endpoint gives is derived for other entries: every entry is asked.
    if (from.length === 0) return (e) => this.of(e).includes(tag);
    const prefixes = this.#catalogue
      .all()
      .filter((e) => e.module?.dependsOn.some((d) => from.includes(d.on)) === true)
      .map((e) => e.name);
    const carries = (e: CacheEntry): boolean => startsWithAny(e.key, prefixes) && this.of(e).includes(tag);
    const value = tag.slice(name.length + 1);
    if (name === 'address' || name === 'token') return (e) => e.key.includes(value) && carries(e);
    if (name !== 'finality') return carries;
    // A block named by a parameter is in the key; one named by the answer (tx/detail) is not.
    const byField = this.#catalogue
      .all()
      .filter((e) => e.module?.dependsOn.some((d) => d.on === 'finality' && 'field' in d) === true)
      .map((e) => e.name);
    const inKey = `=${value}`;
    return (e) => (e.key.includes(inKey) || startsWithAny(e.key, byField)) && carries(e);
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
    const out = headerTags(deps, params, dataFields(entry.body, deps));
    return out.length === 0 ? NONE : out;
  }
}
