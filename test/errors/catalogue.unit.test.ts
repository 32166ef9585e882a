/**
 * One error catalogue: a code means one thing (no two different errors share
 * it), and every code the proxy can send is in the error table of docs/api.md with
 * its status, so clients can rely on the documented list.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EDGE_ERRORS, ERRORS } from '../../src/errors/catalog.js';

const ALL = [...Object.entries(ERRORS), ...Object.entries(EDGE_ERRORS)];

describe('error catalogue', () => {
  it('gives each code one meaning', () => {
    const byCode = new Map<number, { status: number; msg: string }>();
    for (const [kind, e] of ALL) {
      const seen = byCode.get(e.code);
      if (seen !== undefined) expect({ kind, status: e.status, msg: e.msg }).toEqual({ kind, ...seen });
      byCode.set(e.code, { status: e.status, msg: e.msg });
    }
  });

  it('documents every code with its status in docs/api.md', () => {
    const readme = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const rows = new Map<number, number[]>();
    for (const m of readme.matchAll(/^\s*\| (\d{4}) \| (\d{3}) \|/gm)) {
      const code = Number(m[1]);
      rows.set(code, [...(rows.get(code) ?? []), Number(m[2])]);
    }
    for (const [kind, e] of ALL) expect(rows.get(e.code), `${kind} (${e.code})`).toEqual([e.status]);
  });
});
