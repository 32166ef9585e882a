/**
 * The OpenAPI 3.1 document, composed from each feature's contribution
 * (`apiOpenapi`, `opsOpenapi`, `dashboardOpenapi`, ...). A path or a differing
 * schema defined twice is a programming error and throws at start.
 */
import type { OpenApiContribution, OpenApiDocument, SchemaObject } from './types.js';

export const DOCUMENT_VERSION = '1.0.0';

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
      if (prev !== undefined && JSON.stringify(prev) !== JSON.stringify(schema)) throw new Error(`OpenAPI schema ${name} contributed twice, differently`);
      schemas[name] = schema;
    }
  }
  const used = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => op?.tags ?? [])));
  return {
    openapi: '3.1.0',
    info: {
      title: 'chainproxy: Chain Data Query Service',
      version: DOCUMENT_VERSION,
      description:
        'Read-only blockchain data (transactions, blocks, tokens, holders, NAX, addresses, statistics) behind a caching proxy. Every answer is a `{code, msg, data}` envelope; `code` 0 is success.',
    },
    servers: [{ url: opts.publicBaseUrl }],
    tags: TAGS.filter((t) => used.has(t.name)),
    paths,
    components: { schemas },
  };
}
