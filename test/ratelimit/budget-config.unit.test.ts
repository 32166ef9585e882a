/**
 * Miss-budget and credit settings: RATE_LIMIT_MISS_BUDGET and the default
 * prices from the environment, `creditCosts:` from CONFIG_FILE (endpoints
 * and pages, built in or declared), each mistake named.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from '../config/helpers.js';

describe('miss budget and credit settings', () => {
  it('has documented defaults and reads the environment', () => {
    const d = loadConfig({});
    expect([d.missBudget, d.credits, d.creditCosts]).toEqual([120, { hitCost: 1, missCost: 5 }, {}]);
    const c = loadConfig({ RATE_LIMIT_MISS_BUDGET: '0', CREDITS_HIT_COST: '2', CREDITS_MISS_COST: '20' });
    expect([c.missBudget, c.credits]).toEqual([0, { hitCost: 2, missCost: 20 }]);
  });

  it('reads creditCosts for endpoints, built-in pages and pages of the file', () => {
    const file = tempFile(
      '.yaml',
      [
        'missBudget: 40',
        'credits: { missCost: 8 }',
        'creditCosts:',
        '  "tx/list": { hit: 2, miss: 0 }',
        '  "pages/home": { miss: 1 }',
        '  "pages/mine": { hit: 4 }',
        'pages:',
        '  mine: { params: {}, parts: { head: { endpoint: block/max } } }',
        '',
      ].join('\n'),
    );
    const c = loadConfig({ CONFIG_FILE: file });
    expect(c.missBudget).toBe(40);
    expect(c.credits).toEqual({ hitCost: 1, missCost: 8 });
    expect(c.creditCosts).toEqual({
      'tx/list': { hit: 2, miss: 0 },
      'pages/home': { miss: 1 },
      'pages/mine': { hit: 4 },
    });
  });

  it('names each mistake', () => {
    const file = tempFile(
      '.json',
      JSON.stringify({
        creditCosts: { 'tx/nope': { hit: 1 }, 'pages/none': { hit: 1 }, 'tx/list': { hit: -1, extra: 2 }, holders: 3 },
      }),
    );
    const text = errorsOf({ CONFIG_FILE: file, RATE_LIMIT_MISS_BUDGET: 'lots' }).join('\n');
    for (const part of [
      'RATE_LIMIT_MISS_BUDGET: expected an integer from 0 to 1000000000, got "lots"',
      'creditCosts (in ',
      '.tx/nope: expected an endpoint name or pages/<page name>, got "tx/nope"',
      '.pages/none: expected a page of the built-in table or of pages:, got "none"',
      '.tx/list.hit: expected an integer from 0 to 1000000, got -1',
      '.tx/list.extra: expected one of hit, miss, got an unknown key',
      '.holders: expected a map { hit, miss }, got 3',
    ])
      expect(text, part).toContain(part);
    expect(errorsOf({ CONFIG_FILE: tempFile('.yaml', 'creditCosts: [1]\n') }).join('\n')).toContain(
      'expected a map of endpoint or pages/<name> to { hit, miss }',
    );
  });
});
