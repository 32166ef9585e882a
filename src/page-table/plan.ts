/**
 * Compiles the page table (built-in and CONFIG_FILE) once at start: page
 * parameters as ParamSpecs (validated by the same canonicalize as the 22
 * endpoints), part queries as templates, and every reference checked
 * (known endpoint and parameter, known page parameter or part, no cycle).
 */
import type { Catalogue } from '../catalogue/index.js';
import { MISSING_PREFIX, P } from '../endpoints/params.js';
import type { EndpointDef, EndpointName } from '../catalogue/types.js';
import type { ParamSpec } from '../endpoints/types.js';
import { blockMax } from '../endpoints/block-max.js';
import { compileTemplate, refsOf, type Alt } from './template.js';
import type { PageDecl, PageParamName, PageTable } from './types.js';

const PAGE_PARAM_SPECS: Readonly<Record<PageParamName, ParamSpec>> = {
  h: P.h,
  hash: P.hash,
  address: P.address,
  token: P.token,
  contract: P.optAddress('contract'),
  // Pages show the first rows of each list: 10 by default.
  page_size: { ...P.pageSize, defaultValue: '10' },
};

const PAGE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

export interface CompiledPart {
  name: string;
  endpoint: EndpointDef;
  query: ReadonlyArray<readonly [string, readonly Alt[]]>;
  when: readonly Alt[] | null;
  required: boolean;
  internal: boolean;
}

export interface CompiledPage {
  name: string;
  /** Page parameters in the shape canonicalize() takes (name `pages/<name>`: the composed cache key's prefix). */
  def: EndpointDef;
  parts: readonly CompiledPart[];
  /** Parameters of which exactly one must be given (empty when none). */
  exactlyOne: readonly string[];
}

function exactlyOne(names: readonly string[]) {
  return (params: ReadonlyMap<string, string>): string | null => {
    const given = names.filter((n) => params.has(n));
    if (given.length === 1) return null;
    const list = names.join(' or ');
    return given.length === 0
      ? `${MISSING_PREFIX} ${names.join('/')}: expected exactly one of ${list}`
      : `invalid parameter ${names.join('/')}: expected exactly one of ${list}, got ${given.join(' and ')}`;
  };
}

function hasCycle(deps: ReadonlyMap<string, readonly string[]>): string | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string): string | null => {
    if (state.get(n) === 'done') return null;
    if (state.get(n) === 'visiting') return n;
    state.set(n, 'visiting');
    for (const d of deps.get(n) ?? []) {
      const c = visit(d);
      if (c !== null) return c;
    }
    state.set(n, 'done');
    return null;
  };
  for (const n of deps.keys()) {
    const c = visit(n);
    if (c !== null) return c;
  }
  return null;
}

/** One page; pushes `label: expected X, got Y` messages to `errors`. */
export function compilePage(
  name: string,
  decl: PageDecl,
  catalogue: Catalogue,
  label: string,
  errors: string[],
): CompiledPage | null {
  const before = errors.length;
  if (!PAGE_NAME.test(name))
    errors.push(
      `${label}: expected a page name of a-z, 0-9, _ and - (at most 32, starting with a letter), got "${name}"`,
    );
  const params: ParamSpec[] = [];
  for (const [p, mode] of Object.entries(decl.params)) {
    const spec = (PAGE_PARAM_SPECS as Record<string, ParamSpec | undefined>)[p];
    if (spec === undefined)
      errors.push(`${label}.params.${p}: expected one of ${Object.keys(PAGE_PARAM_SPECS).join(', ')}, got "${p}"`);
    else if (mode !== 'required' && mode !== 'optional')
      errors.push(`${label}.params.${p}: expected required or optional, got ${JSON.stringify(mode)}`);
    else params.push({ ...spec, required: mode === 'required' });
  }
  const isParam = (n: string): boolean => params.some((s) => s.name === n);
  for (const n of decl.exactlyOne ?? [])
    if (!isParam(n)) errors.push(`${label}.exactlyOne: expected declared parameters, got "${n}"`);
  const partNames = Object.keys(decl.parts);
  if (partNames.length === 0) errors.push(`${label}.parts: expected at least one part, got none`);

  const parts: CompiledPart[] = [];
  const deps = new Map<string, string[]>();
  for (const [partName, part] of Object.entries(decl.parts)) {
    const at = `${label}.parts.${partName}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(partName) || isParam(partName)) {
      errors.push(`${at}: expected a part name (letters, digits, _) that is not a page parameter, got "${partName}"`);
      continue;
    }
    let endpoint: EndpointDef;
    try {
      endpoint = catalogue.get(part.endpoint);
    } catch {
      errors.push(`${at}.endpoint: expected a catalogue endpoint name, got ${JSON.stringify(part.endpoint)}`);
      continue;
    }
    const query: Array<readonly [string, readonly Alt[]]> = [];
    const refs: string[] = [];
    const compile = (text: unknown, where: string): Alt[] | null => {
      if (typeof text !== 'string') {
        errors.push(`${where}: expected a string, got ${JSON.stringify(text)}`);
        return null;
      }
      try {
        const alts = compileTemplate(text, isParam, where);
        for (const r of refsOf(alts)) {
          if (!partNames.includes(r))
            errors.push(`${where}: expected a page parameter or a part of this page, got "${r}"`);
          refs.push(r);
        }
        return alts;
      } catch (e) {
        errors.push(e instanceof Error ? e.message : String(e));
        return null;
      }
    };
    for (const [q, text] of Object.entries(part.query ?? {})) {
      if (!endpoint.params.some((s) => s.name === q)) {
        errors.push(
          `${at}.query.${q}: expected a parameter of ${endpoint.name} ` +
            `(${endpoint.params.map((s) => s.name).join(', ') || 'none'}), got "${q}"`,
        );
        continue;
      }
      const alts = compile(text, `${at}.query.${q}`);
      if (alts !== null) query.push([q, alts]);
    }
    const when = part.when === undefined ? null : compile(part.when, `${at}.when`);
    for (const [flag, v] of [
      ['required', part.required],
      ['internal', part.internal],
    ] as const) {
      if (v !== undefined && typeof v !== 'boolean')
        errors.push(`${at}.${flag}: expected true or false, got ${JSON.stringify(v)}`);
    }
    deps.set(partName, refs);
    parts.push({
      name: partName,
      endpoint,
      query,
      when,
      required: part.required === true,
      internal: part.internal === true,
    });
  }
  const cycle = hasCycle(deps);
  if (cycle !== null)
    errors.push(`${label}.parts.${cycle}: expected parts without circular references, got a cycle through "${cycle}"`);
  if (errors.length > before) return null;
  const def: EndpointDef = {
    // Not a catalogue endpoint: canonicalize() uses the name only as the key prefix.
    name: `pages/${name}` as EndpointName,
    params,
    check: decl.exactlyOne === undefined ? undefined : exactlyOne(decl.exactlyOne),
    policy: blockMax.policy,
  };
  return { name, def, parts, exactlyOne: decl.exactlyOne ?? [] };
}

export class PageTableError extends Error {
  readonly errors: readonly string[];
  constructor(errors: readonly string[]) {
    super(errors.join('\n'));
    this.name = 'PageTableError';
    this.errors = errors;
  }
}

/** The built-in table with configured pages added or replacing built-in ones; throws PageTableError. */
export function compilePages(
  builtIn: PageTable,
  configured: PageTable,
  catalogue: Catalogue,
): ReadonlyMap<string, CompiledPage> {
  const errors: string[] = [];
  const out = new Map<string, CompiledPage>();
  for (const [name, decl] of Object.entries({ ...builtIn, ...configured })) {
    const label = name in configured ? `pages.${name}` : `built-in page ${name}`;
    const c = compilePage(name, decl, catalogue, label, errors);
    if (c !== null) out.set(name, c);
  }
  if (errors.length > 0) throw new PageTableError(errors);
  return out;
}
