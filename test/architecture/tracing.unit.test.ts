/**
 * Tracing off costs no OpenTelemetry module: only src/tracing/sdk.ts and the
 * export transport it alone imports (export-transport.ts) import
 * `@opentelemetry/*`, and sdk.ts is reached by one dynamic import
 * (tracing.ts, made only when an OTLP endpoint is configured), never by a
 * static one.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-tree.js';

const SRC = join(import.meta.dirname, '../../src');

const texts = tsFiles(SRC).map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));

describe('tracing is loaded only when configured', () => {
  it('only src/tracing/sdk.ts and its export transport import an OpenTelemetry package', () => {
    const importers = texts.filter((t) => /from '@opentelemetry\/|import\('@opentelemetry\//.test(t.text));
    expect(importers.map((t) => t.file).sort()).toEqual(['tracing/export-transport.ts', 'tracing/sdk.ts']);
    const transport = texts.filter((t) => /from '[./]*(tracing\/)?export-transport\.js'/.test(t.text));
    expect(transport.map((t) => t.file)).toEqual(['tracing/sdk.ts']);
  });

  it('sdk.ts is imported dynamically, by tracing.ts alone', () => {
    const static_ = texts.filter((t) => /from '[./]*(tracing\/)?sdk\.js'/.test(t.text));
    expect(static_.map((t) => t.file)).toEqual([]);
    const dynamic = texts.filter((t) => /import\('[./]*(tracing\/)?sdk\.js'\)/.test(t.text));
    expect(dynamic.map((t) => t.file)).toEqual(['tracing/tracing.ts']);
  });
});
