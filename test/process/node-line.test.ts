/**
 * On a Node.js line package.json's engines do not name (this machine's
 * /usr/bin/node is one, when present), start-up says so on stderr; on the
 * supported line running the tests it says nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { built } from '../helpers/test-build.js';
import { satisfies } from '../../src/startup/node-line.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OTHER_NODE = '/usr/bin/node';

function run(node: string): Promise<{ code: number | null; stderr: string; version: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', UPSTREAM_URLS: '' };
    execFile(node, ['-p', 'process.version'], (_e, version) => {
      execFile(node, [built('src/main.ts'), '--check'], { cwd: ROOT, env }, (err, _out, stderr) => {
        resolve({
          code: err === null ? 0 : ((err as { code?: number }).code ?? null),
          stderr,
          version: version.trim(),
        });
      });
    });
  });
}

describe('the Node.js line', { timeout: 60_000 }, () => {
  it('the supported line running the tests: no warning', async () => {
    const r = await run(process.execPath);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('not a supported line');
  });

  const other = existsSync(OTHER_NODE) ? OTHER_NODE : null;
  it.skipIf(other === null)('another line: a warning naming it and the supported ones', async () => {
    const r = await run(other!);
    if (satisfies(r.version, '^22.13.0 || >=24')) return;
    expect(r.stderr).toContain(`chainproxy: warning: Node.js ${r.version} is not a supported line`);
  });
});
