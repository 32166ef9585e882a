/**
 * One epilogue: an answer is counted in a request metric family and written
 * to the access log in src/http/epilogue.ts alone. Read from the source text
 * with TypeScript's parser: a count is a `.request(…)` call with three or more
 * arguments (the request families' signature; `pages.request(page, query)`
 * parses a page request), an access-log line is a logger call whose fields
 * name a `status` or whose message is `request`, `page` or `batch`.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsFiles, walk } from '../helpers/source-tree.js';

const SRC = join(import.meta.dirname, '../../src');
const EPILOGUE = 'http/epilogue.ts';
const LOG_METHODS = new Set(['info', 'warn', 'error', 'debug', 'trace', 'fatal']);
const ACCESS_MESSAGES = new Set(['request', 'page', 'batch']);

const hasStatus = (n: ts.Expression | undefined): boolean =>
  n !== undefined &&
  ts.isObjectLiteralExpression(n) &&
  n.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === 'status');

const isAccessMessage = (n: ts.Expression | undefined): boolean =>
  n !== undefined && ts.isStringLiteralLike(n) && ACCESS_MESSAGES.has(n.text);

/** `line text` of each count and access-log line in `text`. */
function answersRecorded(text: string): string[] {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  walk(sf, (n) => {
    if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) return;
    const method = n.expression.name.text;
    const counts = method === 'request' && n.arguments.length >= 3;
    const logs = LOG_METHODS.has(method) && (hasStatus(n.arguments[0]) || isAccessMessage(n.arguments[1]));
    if (counts || logs) {
      const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
      out.push(`${line} ${n.expression.getText(sf)}`);
    }
  });
  return out;
}

describe('the check itself', () => {
  it('finds counts and access-log lines, not request parsing or other log lines', () => {
    const text = [
      "metrics.request(name, status, 'HIT', 0);",
      'this.#pages?.request(page, status, cache, s);',
      'pages.request(page, query);',
      "request.log.info({ reqId, status }, 'done');",
      "logger.info({ reqId }, 'page');",
      "logger.warn({ err }, 'refresh failed');",
      "request.log.error({ reqId: request.id, err: error }, 'unhandled error');",
    ].join('\n');
    expect(answersRecorded(text)).toEqual([
      '1 metrics.request',
      '2 this.#pages?.request',
      '4 request.log.info',
      '5 logger.info',
    ]);
  });
});

describe('one epilogue', () => {
  const found = tsFiles(SRC).flatMap((f) => {
    const name = relative(SRC, f).split('\\').join('/');
    return answersRecorded(readFileSync(f, 'utf8')).map((l) => `${name}:${l}`);
  });

  it('counts and logs answers, and nothing else does', () => {
    const elsewhere = found.filter((l) => !l.startsWith(`${EPILOGUE}:`));
    expect(elsewhere).toEqual([]);
    expect(found.filter((l) => l.startsWith(`${EPILOGUE}:`)).length).toBeGreaterThan(0);
  });
});
