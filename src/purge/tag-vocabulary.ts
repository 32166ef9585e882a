/**
 * The one tag vocabulary: every tag an answer carries (the `Cache-Tag` and
 * `Surrogate-Key` headers, CACHE_TAG_HEADERS; src/invalidation/tags.ts
 * `headerTags` writes them) is a tag `/purge?tag=` accepts and purges by, one
 * line per kind below. A kind is a bare word (`head`) or `<kind>:<value>`;
 * `from` names the dependencies (endpoint modules' `dependsOn`) whose answers
 * carry it, which is also what docs/operations.md's generated table lists.
 * A kind no endpoint's dependency gives (`from: []`) is derived for entries
 * elsewhere (src/purge/entry-tags.ts) and judged without a walk's shortcut.
 */
import { P } from '../endpoints/params.js';
import { PREFIX_VALUE } from '../passthrough/purge-tags.js';
import type { Dependency, ParamLimits, ParamSpec } from '../endpoints/types.js';

interface TagValue {
  /** Checks a value and gives its canonical form (a parameter's parser, or one of its own). */
  spec: Pick<ParamSpec, 'parse'>;
  /** How the docs and messages name the value (`address:<address>`). */
  hint: string;
}

export interface TagKind {
  /** What follows `<kind>:`; null: a bare word, no value. */
  value: TagValue | null;
  /** Fixed values, each a tag of its own (`contract:deployed`), tried before `value`. */
  words?: readonly string[];
  /** With a value: another spelling of this kind (`height:<n>` is `finality:<n>`). */
  sameAs?: string;
  /** Dependencies whose answers carry it. */
  from: readonly Dependency['on'][];
  /** What it names, for the docs. */
  doc: string;
}

const ADDRESS: TagValue = { spec: P.address, hint: 'address' };
const HEIGHT: TagValue = { spec: P.blockHeight, hint: 'n' };
/** `block/detail` asked by hash carries `finality:<hash>`: the block it was asked by, whatever its height. */
const HEIGHT_OR_HASH: TagValue = { spec: P.h, hint: 'n or hash' };

export const TAG_KINDS: Readonly<Record<string, TagKind>> = {
  head: { value: null, from: ['head'], doc: 'answers that change with every new block' },
  address: { value: ADDRESS, from: ['address', 'contract'], doc: 'answers naming the address in a parameter' },
  contract: {
    value: ADDRESS,
    words: ['deployed'],
    sameAs: 'address',
    from: ['deployment'],
    doc: '`contract:deployed`: the lists any new contract changes; `contract:<address>` is `address:<address>`',
  },
  token: { value: { spec: P.token, hint: 'name' }, from: ['token'], doc: 'answers naming the token in a parameter' },
  finality: {
    value: HEIGHT_OR_HASH,
    from: ['finality'],
    doc: 'the block of height n (or asked by its hash), its transactions, those mined in it',
  },
  height: { value: HEIGHT, sameAs: 'finality', from: [], doc: 'the same as `finality:<n>`' },
  pending: { value: null, from: ['pending'], doc: 'answers about the pending pool' },
  day: { value: null, from: ['day'], doc: 'answers about the current day' },
  'nax-stage': { value: null, from: ['nax-stage', 'stage-end'], doc: 'answers about the running NAX stage' },
  'stage-end': { value: HEIGHT, from: ['stage-end'], doc: 'the NAX summary of the stage ending at height n' },
  prefix: { value: PREFIX_VALUE, from: [], doc: 'passthrough answers under the path (any leading path of their URL)' },
};

/** A kind by name (own keys only). */
export function tagKind(name: string): TagKind | undefined {
  return Object.hasOwn(TAG_KINDS, name) ? TAG_KINDS[name] : undefined;
}

/** The kind name of a tag (`address` of `address:n1…`, `head` of `head`). */
export function kindName(tag: string): string {
  const colon = tag.indexOf(':');
  return colon < 0 ? tag : tag.slice(0, colon);
}

/** How a kind is written (`head`, `address:<address>`, `contract:deployed`). */
export function tagShapes(name: string, kind: TagKind): string[] {
  const words = (kind.words ?? []).map((w) => `${name}:${w}`);
  return kind.value === null ? [name] : [...words, `${name}:<${kind.value.hint}>`];
}

export type TagParse = { ok: true; tag: string } | { ok: false; expected: string };

/** The tag a purge's `tag=` names, in the spelling answers carry; or what was expected. */
export function parseTag(raw: string, limits: ParamLimits): TagParse {
  const colon = raw.indexOf(':');
  const name = colon < 0 ? raw : raw.slice(0, colon);
  const kind = tagKind(name);
  if (kind === undefined) {
    const all = Object.entries(TAG_KINDS).flatMap(([n, k]) => tagShapes(n, k));
    return { ok: false, expected: `one of ${all.join(', ')}` };
  }
  const shape = tagShapes(name, kind).join(' or ');
  if (kind.value === null) return colon < 0 ? { ok: true, tag: name } : { ok: false, expected: shape };
  if (colon < 0) return { ok: false, expected: shape };
  const value = raw.slice(colon + 1);
  if (kind.words?.includes(value) === true) return { ok: true, tag: raw };
  const r = kind.value.spec.parse(value, limits);
  return r.ok ? { ok: true, tag: `${kind.sameAs ?? name}:${r.value}` } : { ok: false, expected: shape };
}

/** A mark's target in today's spelling (a replica of an older version may send `height:<n>`). */
export function canonicalTarget(target: string): string {
  const colon = target.indexOf(':');
  const kind = colon < 0 ? undefined : tagKind(target.slice(0, colon));
  const value = target.slice(colon + 1);
  return kind?.sameAs === undefined || kind.words?.includes(value) === true ? target : `${kind.sameAs}:${value}`;
}
