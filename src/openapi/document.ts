/**
 * The OpenAPI 3.1 document, composed from each feature's contribution
 * (`apiOpenapi`, `opsOpenapi`, `dashboardOpenapi`, ...). A path or a differing
 * schema defined twice is a programming error and throws at start. The public
 * document is the full one without the operator paths (and the schemas and
 * tags only they use).
 */
import { VERSION } from '../config/version.js';
import type { OpenApiContribution, OpenApiDocument, SchemaObject } from './types.js';

const TAGS = [
  { name: 'tx', description: 'Transactions' },
  { name: 'block', description: 'Blocks' },
  { name: 'token', description: 'Tokens' },
  { name: 'nax', description: 'NAX distribution' },
  { name: 'address', description: 'Addresses' },
  { name: 'chain', description: 'Chain statistics' },
  { name: 'contracts', description: 'Contracts' },
  { name: 'holders', description: 'Top holders' },
  { name: 'pages', description: 'Explorer pages composed from cached parts' },
  { name: 'batch', description: 'Several endpoint requests in one' },
  { name: 'stream', description: 'New blocks pushed as server-sent events' },
  { name: 'operator', description: 'Operations: health, status, metrics' },
];

export interface DocumentOptions {
  publicBaseUrl: string;
  contributions: readonly OpenApiContribution[];
}

const REF = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;

/** Names of the component schemas `value` references, directly or through other schemas. */
function referenced(value: unknown, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const pending = [JSON.stringify(value)];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const m of text.matchAll(REF)) {
      const name = m[1]!;
      if (seen.has(name)) continue;
      seen.add(name);
      pending.push(JSON.stringify(schemas[name] ?? null));
    }
  }
  return seen;
}

/** The document without the paths `hidden` says are hidden. */
export function withoutPaths(doc: OpenApiDocument, hidden: (path: string) => boolean): OpenApiDocument {
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => !hidden(p)));
  const used = referenced(paths, doc.components.schemas);
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas).filter(([name]) => used.has(name)));
  const tags = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op?.tags ?? [])));
  return { ...doc, tags: doc.tags.filter((t) => tags.has(t.name)), paths, components: { schemas } };
}

export function buildOpenApiDocument(opts: DocumentOptions): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const schemas: Record<string, SchemaObject> = {};
  for (const c of opts.contributions) {
    for (const [path, item] of Object.entries(c.paths)) {
      if (path in paths) throw new Error(`OpenAPI path ${path} contributed twice`);
      paths[path] = item;
    }
    for (const [name, schema] of Object.entries(c.schemas ?? {})) {
      const prev = schemas[name];
      if (prev !== undefined && JSON.stringify(prev) !== JSON.stringify(schema))
        throw new Error(`OpenAPI schema ${name} contributed twice, differently`);
      schemas[name] = schema;
    }
  }
  const used = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op?.tags ?? [])));
  return {
    openapi: '3.1.0',
    info: {
      title: 'chainproxy: Chain Data Query Service',
      // The package's version: the document describes this release of the proxy.
      version: VERSION,
      description:
        'Read-only blockchain data (transactions, blocks, tokens, holders, NAX, addresses, statistics) ' +
        'behind a caching proxy. Every answer is a `{code, msg, data}` envelope; `code` 0 is success.',
    },
    servers: [{ url: opts.publicBaseUrl }],
    tags: TAGS.filter((t) => used.has(t.name)),
    paths,
    components: { schemas },
  };
}
