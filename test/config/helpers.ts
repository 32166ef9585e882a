import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';

/** The messages loadConfig throws for this environment (fails when it does not throw). */
export function errorsOf(env: Record<string, string>, argv: string[] = []): string[] {
  try {
    loadConfig(env, argv);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.errors];
    throw e;
  }
  throw new Error('expected a ConfigError');
}

const dir = mkdtempSync(join(tmpdir(), 'chainproxy-config-'));
let n = 0;

export function tempFile(ext: string, text: string): string {
  const path = join(dir, `config-${n++}${ext}`);
  writeFileSync(path, text);
  return path;
}
