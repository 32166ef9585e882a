/**
 * Query templates of page parts (syntax in ./types.ts): compiled once, then
 * resolved against the page's parameters and the data of finished parts.
 */

type Seg = { key: string } | { find: string; equals: PartRef };
interface PartRef {
  part: string;
  path: readonly Seg[];
}
export type Alt =
  | { kind: 'literal'; value: string }
  | { kind: 'param'; name: string; filter: 'height' | 'hash' | null }
  | ({ kind: 'part' } & PartRef);

/** Data of the parts so far: absent = not finished; `failed` = no data to derive from. */
export interface PartsSoFar {
  has(part: string): boolean;
  data(part: string): unknown;
  failed(part: string): boolean;
}

export type Resolved =
  | { state: 'value'; value: string | null } // null: leave the parameter out
  | { state: 'wait'; part: string }
  | { state: 'none'; failedPart: string | null };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseRef(text: string, where: string): PartRef {
  // part(.seg | [field=ref])*
  const m = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(text);
  if (m === null) throw new Error(`${where}: expected a part name, got "${text}"`);
  const path: Seg[] = [];
  let i = m[1]!.length;
  while (i < text.length) {
    if (text[i] === '.') {
      const s = /^[A-Za-z0-9_]+/.exec(text.slice(i + 1));
      if (s === null) throw new Error(`${where}: expected a field name after "." in "${text}"`);
      path.push({ key: s[0] });
      i += 1 + s[0].length;
    } else if (text[i] === '[') {
      const close = text.indexOf(']', i);
      const inner = close < 0 ? '' : text.slice(i + 1, close);
      const eq = inner.indexOf('=');
      const field = inner.slice(0, eq);
      if (close < 0 || eq < 1 || !IDENT.test(field))
        throw new Error(`${where}: expected [field=part.path] in "${text}"`);
      path.push({ find: field, equals: parseRef(inner.slice(eq + 1), where) });
      i = close + 1;
    } else {
      throw new Error(`${where}: unexpected "${text[i]}" in "${text}"`);
    }
  }
  return { part: m[1]!, path };
}

/** Compiles `'{h:height}|{block.height}'`; `isParam` tells page parameters from part names. */
export function compileTemplate(text: string, isParam: (name: string) => boolean, where: string): Alt[] {
  return text.split('|').map((raw): Alt => {
    const t = raw.trim();
    if (!t.startsWith('{')) {
      if (t.includes('{') || t.includes('}'))
        throw new Error(`${where}: expected a literal or one {reference}, got "${t}"`);
      return { kind: 'literal', value: t };
    }
    if (!t.endsWith('}')) throw new Error(`${where}: expected a closing "}" in "${t}"`);
    const body = t.slice(1, -1);
    const colon = body.indexOf(':');
    const name = colon < 0 ? body : body.slice(0, colon);
    if (isParam(name)) {
      const filter = colon < 0 ? null : body.slice(colon + 1);
      if (filter !== null && filter !== 'height' && filter !== 'hash')
        throw new Error(`${where}: expected filter height or hash, got "${filter}"`);
      return { kind: 'param', name, filter };
    }
    if (colon >= 0) throw new Error(`${where}: "${name}" is not a page parameter, so it takes no filter`);
    return { kind: 'part', ...parseRef(body, where) };
  });
}

/** Part names a template refers to (for the dependency check). */
export function refsOf(alts: readonly Alt[]): string[] {
  const out: string[] = [];
  const walk = (r: PartRef): void => {
    out.push(r.part);
    for (const s of r.path) if ('find' in s) walk(s.equals);
  };
  for (const a of alts) if (a.kind === 'part') walk(a);
  return out;
}

function scalar(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'boolean') return String(v);
  return null;
}

type Walk = { ok: true; value: unknown } | { ok: false; wait: string | null; failed: string | null };

function walkRef(ref: PartRef, parts: PartsSoFar): Walk {
  if (!parts.has(ref.part)) return { ok: false, wait: ref.part, failed: null };
  if (parts.failed(ref.part)) return { ok: false, wait: null, failed: ref.part };
  let cur: unknown = parts.data(ref.part);
  for (const seg of ref.path) {
    if ('key' in seg) {
      cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[seg.key] : undefined;
      continue;
    }
    const want = walkRef(seg.equals, parts);
    if (!want.ok) return want;
    const target = scalar(want.value);
    cur =
      Array.isArray(cur) && target !== null
        ? cur.find(
            (it) =>
              typeof it === 'object' && it !== null && scalar((it as Record<string, unknown>)[seg.find]) === target,
          )
        : undefined;
  }
  return { ok: true, value: cur };
}

const isHeight = (v: string): boolean => v.length < 64 && /^\d+$/.test(v);

export function resolveTemplate(
  alts: readonly Alt[],
  params: ReadonlyMap<string, string>,
  parts: PartsSoFar,
): Resolved {
  let failedPart: string | null = null;
  for (const a of alts) {
    if (a.kind === 'literal') return { state: 'value', value: a.value === '' ? null : a.value };
    if (a.kind === 'param') {
      const v = params.get(a.name);
      if (v === undefined) continue;
      if (a.filter === 'height' && !isHeight(v)) continue;
      if (a.filter === 'hash' && isHeight(v)) continue;
      return { state: 'value', value: v };
    }
    const w = walkRef(a, parts);
    if (!w.ok) {
      if (w.wait !== null) return { state: 'wait', part: w.wait };
      failedPart ??= w.failed;
      continue;
    }
    const s = scalar(w.value);
    if (s !== null) return { state: 'value', value: s };
  }
  return { state: 'none', failedPart };
}

/** Resolves a `when` reference: run when the value is truthy (not false, 0, empty or absent). */
export function resolveWhen(alts: readonly Alt[], params: ReadonlyMap<string, string>, parts: PartsSoFar): Resolved {
  const r = resolveTemplate(alts, params, parts);
  if (r.state !== 'value') return r;
  return r.value === null || r.value === 'false' || r.value === '0' ? { state: 'none', failedPart: null } : r;
}
