/**
 * The `pages:` section of CONFIG_FILE: pages added to (or replacing) the
 * built-in table, validated at start like every setting
 * (`pages.<name>.<field>: expected X, got Y`).
 */
import { buildCatalogue } from '../catalogue/index.js';
import { compilePage } from './plan.js';
import type { PageDecl, PageTable } from './types.js';

const PAGE_KEYS = new Set(['params', 'exactlyOne', 'parts']);
const PART_KEYS = new Set(['endpoint', 'query', 'required', 'when', 'internal']);

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shape(raw: unknown, label: string, errors: string[]): PageDecl | null {
  if (!isMap(raw)) {
    errors.push(`${label}: expected a map with params and parts, got ${JSON.stringify(raw)}`);
    return null;
  }
  const before = errors.length;
  for (const k of Object.keys(raw))
    if (!PAGE_KEYS.has(k)) errors.push(`${label}.${k}: expected one of ${[...PAGE_KEYS].join(', ')}, got "${k}"`);
  const params = raw['params'] ?? {};
  if (!isMap(params))
    errors.push(
      `${label}.params: expected a map of parameter name to required or optional, got ${JSON.stringify(params)}`,
    );
  const one = raw['exactlyOne'];
  if (one !== undefined && !(Array.isArray(one) && one.every((s) => typeof s === 'string')))
    errors.push(`${label}.exactlyOne: expected a list of parameter names, got ${JSON.stringify(one)}`);
  const parts = raw['parts'];
  if (!isMap(parts))
    errors.push(
      `${label}.parts: expected a map of part name to {endpoint, ` +
        `query, required, when, internal}, got ${JSON.stringify(parts)}`,
    );
  else {
    for (const [p, part] of Object.entries(parts)) {
      if (!isMap(part))
        errors.push(`${label}.parts.${p}: expected a map with endpoint and query, got ${JSON.stringify(part)}`);
      else {
        for (const k of Object.keys(part))
          if (!PART_KEYS.has(k))
            errors.push(`${label}.parts.${p}.${k}: expected one of ${[...PART_KEYS].join(', ')}, got "${k}"`);
        if (part['query'] !== undefined && !isMap(part['query']))
          errors.push(
            `${label}.parts.${p}.query: expected a map of parameter to ` +
              `value or template, got ${JSON.stringify(part['query'])}`,
          );
      }
    }
  }
  return errors.length > before ? null : (raw as unknown as PageDecl);
}

/** Validates `pages:`; each page also compiled against the catalogue (references, cycles). */
export function checkPages(raw: unknown, label: string): { pages: PageTable; errors: string[] } {
  const errors: string[] = [];
  if (!isMap(raw))
    return { pages: {}, errors: [`${label}: expected a map of page name to page, got ${JSON.stringify(raw)}`] };
  const catalogue = buildCatalogue();
  const pages: Record<string, PageDecl> = {};
  for (const [name, body] of Object.entries(raw)) {
    const at = `${label}.${name}`;
    const decl = shape(body, at, errors);
    if (decl !== null && compilePage(name, decl, catalogue, at, errors) !== null) pages[name] = decl;
  }
  return { pages, errors };
}
