/** One version everywhere: package.json's, in the OpenAPI document, /status and the build_info metric. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, metric, startEnv, type Env } from '../helpers/proxy-kit.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('the version', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  it(
    'is the package version in /openapi.json, /status, ' + '/dashboard/history.json and chainproxy_build_info',
    async () => {
      expect(((await get(env.base, '/openapi.json')).json as { info: { version: string } }).info.version).toBe(VERSION);
      expect(((await get(env.base, '/status')).json as { data: { version: string } }).data.version).toBe(VERSION);
      expect(
        ((await get(env.base, '/dashboard/history.json')).json as { data: { version: string } }).data.version,
      ).toBe(VERSION);
      expect(await metric(env.base, 'build_info', { version: VERSION, node: process.version })).toBe(1);
    },
  );
});
