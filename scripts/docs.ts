/**
 * `npm run docs`: rewrites the generated parts of docs/ (settings, metrics,
 * errors, cache policies) from the code. test/docs/fresh.test.ts fails when
 * they are stale.
 */
import { writeFileSync } from 'node:fs';
import { GENERATED_FILES, ROOT, generatedParts, readDoc, render } from './docs/generate.js';

const parts = await generatedParts();
for (const rel of GENERATED_FILES) {
  const before = readDoc(rel);
  const after = render(before, parts);
  if (after !== before) writeFileSync(`${ROOT}${rel}`, after);
  console.log(`${after === before ? 'unchanged' : 'written  '} ${rel}`);
}
