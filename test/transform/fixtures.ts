/** The shared fixtures (real upstream answers) as raw bytes. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Fixture {
  path: string;
  query: string;
  body: string;
}

const FILE = fileURLToPath(new URL('../fixtures/datacenter-examples.json', import.meta.url));

export const fixtures: Fixture[] = JSON.parse(readFileSync(FILE, 'utf8')) as Fixture[];

export function fixture(path: string): { body: Buffer; query: string } {
  const f = fixtures.find((x) => x.path === path);
  if (f === undefined) throw new Error(`no fixture for ${path}`);
  return { body: Buffer.from(f.body, 'utf8'), query: f.query };
}
