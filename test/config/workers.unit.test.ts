/** WORKERS: server processes on one port; an integer from 1, or auto (one per core); default 1. */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { helpText } from '../../src/config/help.js';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from './helpers.js';

describe('WORKERS', () => {
  it('defaults to one process; takes a count from the environment or the file; auto is one per core', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ WORKERS: ' Auto ' }).workers).toBe(availableParallelism());
    expect(loadConfig({ CONFIG_FILE: tempFile('.yaml', 'workers: 3\n') }).workers).toBe(3);
    expect(loadConfig({ CONFIG_FILE: tempFile('.json', '{"workers":"auto"}') }).workers).toBe(availableParallelism());
  });

  it('rejects zero, fractions, words and more than 256', () => {
    for (const bad of ['0', '1.5', 'two', '257', '-1'])
      expect(errorsOf({ WORKERS: bad })).toEqual([
        `WORKERS: expected an integer from 1 to 256, or auto (one per core), got "${bad}"`,
      ]);
  });

  it('is in --help with its default', () => {
    expect(helpText()).toMatch(/WORKERS .*\n\s+default: 1\n/);
  });
});
