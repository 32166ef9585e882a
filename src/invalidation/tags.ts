/**
 * An entry's dependency tags, computed once at store time from its endpoint
 * module's `dependsOn` (src/endpoints/*.ts), its request parameters and its
 * data. Only entries whose every applicable dependency is an address, a
 * contract, a token or a block's finality are kept by tags; any other
 * dependency (the head, the pending pool, the day, a NAX stage) keeps the
 * endpoint's own rule (head invalidation, its TTL).
 */
import type { Dependency } from '../endpoints/types.js';

/** What decides when a tag-kept entry changes (stored on the entry). */
export interface EntryDeps {
  /** `address:<id>` (addresses and contracts), `token:<name>`, `contract:*`, `token:*`. */
  readonly tags: readonly string[];
  /** Height of the non-final block the answer is about: stale once that height is final (or rewritten). */
  readonly watchFinal: number | null;
}

export const tagOfAddress = (id: string): string => `address:${id}`;
export const tagOfToken = (name: string): string => `token:${name}`;
/** Any contract deployed or named (the contract list). */
export const ANY_CONTRACT = 'contract:*';
/** Any token transferred (the token list). */
export const ANY_TOKEN = 'token:*';

const heightOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/**
 * Null: the entry keeps the endpoint's own rule. `final` is the chain's final
 * height: an answer about a block already final needs no finality watch.
 */
export function entryDeps(dependsOn: readonly Dependency[], params: ReadonlyMap<string, string>, data: unknown, final: number | null): EntryDeps | null {
  const tags: string[] = [];
  let watchFinal: number | null = null;
  let mined = false;
  let other = false;
  for (const d of dependsOn) {
    if (d.on === 'head') {
      if (d.unless === undefined || !params.has(d.unless)) return null;
    } else if (d.on === 'address') {
      const v = params.get(d.param);
      if (v !== undefined) tags.push(tagOfAddress(v));
    } else if (d.on === 'contract' || d.on === 'token') {
      const v = d.param === undefined ? undefined : params.get(d.param);
      if (d.param === undefined) tags.push(d.on === 'contract' ? ANY_CONTRACT : ANY_TOKEN);
      else if (v !== undefined) tags.push(d.on === 'contract' ? tagOfAddress(v) : tagOfToken(v));
    } else if (d.on === 'finality') {
      const h = heightOf('param' in d ? params.get(d.param) : fieldOf(data, d.field));
      // A block named by hash: its height is not known here, so the endpoint's rule stays.
      if (h === null && 'param' in d && params.has(d.param)) return null;
      if (h !== null) {
        mined = true;
        watchFinal = final !== null && h <= final ? null : h;
      }
    } else {
      other = true;
    }
  }
  // The pending pool, the day, a NAX stage: the endpoint's rule; a mined transaction no longer depends on the pool.
  if (other && !mined) return null;
  if (tags.length === 0 && watchFinal === null) return null;
  return { tags, watchFinal };
}

/** An applicable `head` dependency. */
export function dependsOnHead(dependsOn: readonly Dependency[], params: ReadonlyMap<string, string>): boolean {
  return dependsOn.some((d) => d.on === 'head' && (d.unless === undefined || !params.has(d.unless)));
}

function fieldOf(data: unknown, field: string): unknown {
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>)[field] : undefined;
}

/** Every dependency of an answer as a tag (Cache-Tag, Surrogate-Key): `head`, `pending`, `day`, `nax-stage` besides the entity tags. */
export function headerTags(dependsOn: readonly Dependency[], params: ReadonlyMap<string, string>, data: unknown): string[] {
  const out: string[] = [];
  for (const d of dependsOn) {
    if (d.on === 'head') {
      if (d.unless === undefined || !params.has(d.unless)) out.push('head');
    } else if (d.on === 'address') {
      const v = params.get(d.param);
      if (v !== undefined) out.push(tagOfAddress(v));
    } else if (d.on === 'contract' || d.on === 'token') {
      const v = d.param === undefined ? undefined : params.get(d.param);
      if (d.param === undefined) out.push(d.on === 'contract' ? ANY_CONTRACT : ANY_TOKEN);
      else if (v !== undefined) out.push(d.on === 'contract' ? tagOfAddress(v) : tagOfToken(v));
    } else if (d.on === 'finality') {
      const v = 'param' in d ? params.get(d.param) : fieldOf(data, d.field);
      if (v !== undefined && v !== null) out.push(`finality:${String(v)}`);
    } else out.push(d.on);
  }
  return out;
}
