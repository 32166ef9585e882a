/**
 * The page table: templates, the built-in table compiling, CONFIG_FILE pages
 * (added, replacing, validated at start with `NAME: expected X, got Y`) and
 * MAX_BATCH_ITEMS.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { PAGES } from '../../src/page-table/defaults.js';
import { loadConfig } from '../../src/config/load.js';
import { compilePages, PageTableError } from '../../src/page-table/plan.js';
import { compileTemplate, resolveTemplate, type PartsSoFar } from '../../src/page-table/template.js';
import { errorsOf, tempFile } from '../config/helpers.js';

const isParam = (n: string) => n === 'h' || n === 'page_size';
const parts = (data: Record<string, unknown>, failed: string[] = []): PartsSoFar => ({
  has: (n) => n in data || failed.includes(n),
  failed: (n) => failed.includes(n),
  data: (n) => data[n],
});

describe('templates', () => {
  it('alternatives: a page parameter with a filter, else a part field', () => {
    const t = compileTemplate('{h:height}|{block.height}', isParam, 'x');
    expect(resolveTemplate(t, new Map([['h', '42']]), parts({}))).toEqual({ state: 'value', value: '42' });
    const hash = 'a'.repeat(64);
    expect(resolveTemplate(t, new Map([['h', hash]]), parts({}))).toEqual({ state: 'wait', part: 'block' });
    expect(resolveTemplate(t, new Map([['h', hash]]), parts({ block: { height: 7 } }))).toEqual({
      state: 'value',
      value: '7',
    });
    expect(resolveTemplate(t, new Map([['h', hash]]), parts({ block: { height: null } }))).toEqual({
      state: 'none',
      failedPart: null,
    });
    expect(resolveTemplate(t, new Map([['h', hash]]), parts({}, ['block']))).toEqual({
      state: 'none',
      failedPart: 'block',
    });
  });

  it('a lookup in an array part, and an empty literal that leaves the parameter out', () => {
    const t = compileTemplate('{tokens[contract=tx.contract_address].token_name}', isParam, 'x');
    const data = {
      tx: { contract_address: 'n1b' },
      tokens: [
        { contract: 'n1a', token_name: 'A' },
        { contract: 'n1b', token_name: 'B' },
      ],
    };
    expect(resolveTemplate(t, new Map(), parts(data))).toEqual({ state: 'value', value: 'B' });
    expect(resolveTemplate(compileTemplate('{h}|', isParam, 'x'), new Map(), parts({}))).toEqual({
      state: 'value',
      value: null,
    });
  });

  it('syntax errors name the place', () => {
    expect(() => compileTemplate('{h:bogus}', isParam, 'pages.p.parts.a.query.h')).toThrow(
      'pages.p.parts.a.query.h: expected filter height or hash, got "bogus"',
    );
    expect(() => compileTemplate('x{h}', isParam, 'at')).toThrow('at: expected a literal or one {reference}');
  });
});

describe('the table', () => {
  it('the built-in pages compile', () => {
    expect([...compilePages(PAGES, {}, buildCatalogue()).keys()]).toEqual(['home', 'block', 'tx', 'address', 'token']);
  });

  it('bad declarations are reported all at once', () => {
    const bad = {
      loop: {
        params: {},
        parts: {
          a: { endpoint: 'tx/detail' as const, query: { hash: '{b.x}' } },
          b: { endpoint: 'tx/detail' as const, query: { hash: '{a.x}' } },
        },
      },
    };
    try {
      compilePages(PAGES, bad, buildCatalogue());
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PageTableError);
      expect((e as PageTableError).errors).toEqual([
        'pages.loop.parts.a: expected parts without circular references, got a cycle through "a"',
      ]);
    }
  });
});

describe('CONFIG_FILE pages and MAX_BATCH_ITEMS', () => {
  it('adds and replaces pages', () => {
    const path = tempFile(
      '.yaml',
      [
        'pages:',
        '  tokeninfo:',
        '    params: { token: required }',
        '    parts:',
        '      detail: { endpoint: token/detail, query: { token: "{token}" }, required: true }',
        '  home:',
        '    params: {}',
        '    parts:',
        '      head: { endpoint: block/max }',
      ].join('\n'),
    );
    const c = loadConfig({ CONFIG_FILE: path, MAX_BATCH_ITEMS: '7' });
    expect(Object.keys(c.pages)).toEqual(['tokeninfo', 'home']);
    expect(c.limits.maxBatchItems).toBe(7);
    const compiled = compilePages(PAGES, c.pages, buildCatalogue());
    expect(compiled.get('home')!.parts.map((p) => p.name)).toEqual(['head']);
    expect(compiled.has('tx')).toBe(true);
  });

  it('validated at start, every problem named', () => {
    const path = tempFile(
      '.yaml',
      [
        'pages:',
        '  Bad Name: { params: {}, parts: { a: { endpoint: block/max } } }',
        '  p:',
        '    params: { height: required, h: maybe }',
        '    colour: red',
        '    parts:',
        '      a: { endpoint: block/nope }',
        '      b: { endpoint: tx/list, query: { hash: "1" } }',
        '      c: { endpoint: tx/list, query: { block_height: "{zzz.height}" }, required: yes }',
      ].join('\n'),
    );
    const errors = errorsOf({ CONFIG_FILE: path });
    const at = `pages (in ${path})`;
    expect(errors).toEqual([
      `${at}.Bad Name: expected a page name of a-z, 0-9, _ and - (at most 32, starting with a letter), got "Bad Name"`,
      `${at}.p.colour: expected one of params, exactlyOne, parts, got "colour"`,
    ]);
    const path2 = tempFile(
      '.yaml',
      [
        'pages:',
        '  p:',
        '    params: { height: required, h: maybe }',
        '    parts:',
        '      a: { endpoint: block/nope }',
        '      b: { endpoint: tx/list, query: { hash: "1" } }',
        '      c: { endpoint: tx/list, query: { block_height: "{zzz.height}" }, required: yes }',
      ].join('\n'),
    );
    const at2 = `pages (in ${path2})`;
    expect(errorsOf({ CONFIG_FILE: path2 })).toEqual([
      `${at2}.p.params.height: expected one of h, hash, address, token, contract, page_size, got "height"`,
      `${at2}.p.params.h: expected required or optional, got "maybe"`,
      `${at2}.p.parts.a.endpoint: expected a catalogue endpoint name, got "block/nope"`,
      `${at2}.p.parts.b.query.hash: expected a parameter of tx/list (block_height, page, page_size), got "hash"`,
      `${at2}.p.parts.c.query.block_height: expected a page parameter or a part of this page, got "zzz"`,
      `${at2}.p.parts.c.required: expected true or false, got "yes"`,
    ]);
    expect(errorsOf({ MAX_BATCH_ITEMS: '0' })).toEqual([
      'MAX_BATCH_ITEMS: expected an integer from 1 to 1000, got "0"',
    ]);
  });
});
