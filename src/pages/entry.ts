/**
 * A composed page as an ordinary cache entry: its parts are its dependencies.
 * Fresh until its first part expires; head-dependent when a part is; kept by
 * the union of its parts' tags (and the lowest finality watch), judged like
 * any entry by `entryState` (src/cache/entry.ts). Its ETag is its content
 * without stamps, like an entry's: an unchanged recomposition keeps it.
 */
import { computeEtag } from '../cache/entry.js';
import { pageWindows, type PageLimit } from '../cache/lifetime.js';
import { ownedBytes } from '../cache/owned.js';
import { digits, renderBody } from '../cache/render.js';
import type { CacheEntry, Composed } from '../cache/types.js';
import type { Stamp } from '../transform/stamps.js';
import type { EntryDeps } from '../cache/types.js';

export interface PageParts {
  key: string;
  /** The page's `{"code":0,"msg":"success","data":{…}` with the parts' stamps as stored. */
  data: Buffer;
  /** Stamps in `data`, sorted by start. */
  stamps: readonly Stamp[];
  /** `,"meta":…}` */
  meta: Buffer;
  now: number;
  /** What limits its freshness (lifetime.ts `pageWindows`). */
  limits: readonly PageLimit[];
  /** Best head at composition. */
  head: number | null;
  headDependent: boolean;
  immutable: boolean;
  /** Entries of the parts that succeeded. */
  entries: readonly CacheEntry[];
  composed: Composed;
}

/** `data` with its stamps rendered at `now`, and the stamps where they now are. */
function stampedAt(data: Buffer, stamps: readonly Stamp[], now: number): { body: Buffer; stamps: Stamp[] } {
  if (stamps.length === 0) return { body: data, stamps: [] };
  const body = renderBody({ body: data, stamps }, now);
  const out: Stamp[] = [];
  let shift = 0;
  for (const s of stamps) {
    const len = digits(s, now).length;
    out.push({ ...s, start: s.start + shift, end: s.start + shift + len });
    shift += len - (s.end - s.start);
  }
  return { body, stamps: out };
}

/** Union of the parts' tags and their lowest finality and head watches; undefined when no part is tag-kept. */
function unionDeps(entries: readonly CacheEntry[]): EntryDeps | undefined {
  const tags = new Set<string>();
  let watchFinal: number | null = null;
  let watchHead: number | undefined;
  let clientMaxMs: number | undefined;
  let any = false;
  for (const e of entries) {
    if (e.deps === undefined) continue;
    any = true;
    for (const t of e.deps.tags) tags.add(t);
    const w = e.deps.watchFinal;
    if (w !== null && (watchFinal === null || w < watchFinal)) watchFinal = w;
    const h = e.deps.watchHead;
    if (h !== undefined && (watchHead === undefined || h < watchHead)) watchHead = h;
    const c = e.deps.clientMaxMs;
    if (c !== undefined && (clientMaxMs === undefined || c < clientMaxMs)) clientMaxMs = c;
  }
  if (!any) return undefined;
  return {
    tags: [...tags],
    watchFinal,
    ...(watchHead !== undefined ? { watchHead } : {}),
    ...(clientMaxMs !== undefined ? { clientMaxMs } : {}),
  };
}

/** The head tags are judged from: the oldest head a tag-kept part was fetched at (null if one is unknown). */
function taggedHead(entries: readonly CacheEntry[]): number | null {
  let head = Number.POSITIVE_INFINITY;
  for (const e of entries) {
    if (e.deps === undefined) continue;
    if (e.head === null) return null;
    head = Math.min(head, e.head);
  }
  return head;
}

function unionTagHeader(entries: readonly CacheEntry[]): string | undefined {
  const tags = new Set<string>();
  for (const e of entries) if (e.tagHeader !== undefined) for (const t of e.tagHeader.split(',')) tags.add(t);
  return tags.size === 0 ? undefined : [...tags].join(',');
}

/** W/"p…": the weak validator of the page's data (stamps left out), marked as a page's. */
function pageEtag(data: Buffer, stamps: readonly Stamp[]): string {
  return `W/"p${computeEtag(data, stamps).slice(3)}`;
}

export function pageEntry(p: PageParts): CacheEntry {
  const { body: data, stamps } = stampedAt(p.data, p.stamps, p.now);
  const deps = unionDeps(p.entries);
  // A head-dependent page moves with the best head; a tag-kept one is judged at its oldest part's head.
  const head = p.headDependent || deps === undefined ? p.head : taggedHead(p.entries);
  const tagHeader = unionTagHeader(p.entries);
  return {
    key: p.key,
    status: 200,
    body: ownedBytes(Buffer.concat([data, p.meta])),
    etag: pageEtag(data, stamps),
    ...pageWindows(p.now, p.limits),
    head,
    headDependent: p.headDependent,
    finalAt: null,
    negative: false,
    stamps,
    ...(deps !== undefined ? { deps } : {}),
    ...(tagHeader !== undefined ? { tagHeader } : {}),
    ...(p.immutable ? { immutable: true as const } : {}),
    composed: p.composed,
  };
}
