/**
 * The generated parts of the docs: each lives in a file between
 * `<!-- generated:NAME -->` and `<!-- generated:NAME:end -->`; `render`
 * returns a file's text with every part it holds rewritten.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fleetMessageTable } from './fleet-messages.js';
import { collectMetrics, metricsTable } from './metrics.js';
import { configByTopic, endpointTable, errorTable, policyTable, purgeTagTable, reloadTable } from './tables.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Generated part name → its markdown. */
export async function generatedParts(): Promise<Record<string, string>> {
  return {
    config: configByTopic(),
    reload: reloadTable(),
    errors: errorTable(),
    policies: policyTable(),
    endpoints: endpointTable(),
    metrics: metricsTable(collectMetrics()),
    'purge-tags': purgeTagTable(),
    'fleet-messages': fleetMessageTable(),
  };
}

/** Files holding generated parts, relative to the repository root. */
export const GENERATED_FILES = [
  'docs/configuration.md',
  'docs/metrics.md',
  'docs/api.md',
  'docs/operations.md',
  'docs/architecture.md',
] as const;

const MARKER = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- generated:\1:end -->/g;

/** The file's text with every generated part replaced; throws on a part it does not know. */
export function render(text: string, parts: Record<string, string>): string {
  return text.replace(MARKER, (_all, name: string) => {
    const body = parts[name];
    if (body === undefined) throw new Error(`unknown generated part ${name}`);
    return `<!-- generated:${name} -->\n${body}\n<!-- generated:${name}:end -->`;
  });
}

/** Names of the parts a file holds. */
export function partsIn(text: string): string[] {
  return [...text.matchAll(MARKER)].map((m) => m[1]!);
}

export function readDoc(rel: string): string {
  return readFileSync(`${ROOT}${rel}`, 'utf8');
}
