/** The chain facts the endpoint rules read, declared once (src/endpoints/facts.ts). */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFinalHeight, minedIn, withinHead } from '../../src/endpoints/facts.js';
import { chainAt } from './helpers.js';
import { tsFiles } from '../helpers/source-tree.js';

const ROOT = join(import.meta.dirname, '../..');

describe('chain facts', () => {
  it('pending: status 2, no block height, or no record; else the block it is in', () => {
    expect(minedIn({ status: 2, block_height: 995 })).toBeNull();
    expect(minedIn({ status: 1, block_height: null })).toBeNull();
    expect(minedIn({ status: 1 })).toBeNull();
    expect(minedIn(null)).toBeNull();
    expect(minedIn([])).toBeNull();
    expect(minedIn({ status: 1, block_height: 995 })).toBe(995);
    expect(minedIn({ status: 0, block_height: 7 })).toBe(7);
  });

  it('a final height is at or below the final height; none known, none is', () => {
    expect(isFinalHeight(990, 990)).toBe(true);
    expect(isFinalHeight(991, 990)).toBe(false);
    expect(isFinalHeight(0, null)).toBe(false);
    expect(withinHead(1000, chainAt(1000, 990))).toBe(true);
    expect(withinHead(1001, chainAt(1000, 990))).toBe(false);
    expect(withinHead(5, chainAt(null, null))).toBe(false);
    expect(withinHead(null, chainAt(1000, 990))).toBe(false);
  });

  it('the pending test is written once: no other source file (the simulator aside) compares a status to 2', () => {
    const found: string[] = [];
    for (const file of tsFiles(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file).split('\\').join('/');
      if (rel === 'src/endpoints/facts.ts' || rel.startsWith('src/sim/')) continue;
      if (/\bstatus'?\]?\s*[!=]==?\s*2\b/.test(readFileSync(file, 'utf8'))) found.push(rel);
    }
    expect(found).toEqual([]);
  });
});
