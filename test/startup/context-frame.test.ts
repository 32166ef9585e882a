/**
 * A traced server on the shipped entry points: the launcher starts it with
 * request context on AsyncContextFrame where the Node.js line needs the flag
 * (22), and a server started without the launcher says what the missing flag
 * costs. Real processes; the OTLP endpoint is never reached (nothing sampled
 * is exported before the test ends).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contextFrameFlags } from '../../src/startup/context-frame.js';
import { LAUNCHER, listening, startProc, withStartupLine } from '../process/kit.js';

const TRACED = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_off' };
const WANTED = contextFrameFlags(true, [], undefined);

const argvOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

describe('a traced server and AsyncContextFrame', () => {
  it('the launcher starts it with the flag this Node.js line needs (22: the flag; 24: none)', async () => {
    const p = startProc(TRACED, { entry: LAUNCHER });
    const line = await listening(p);
    const server = Number(line['pid']);
    expect(server).not.toBe(p.child.pid);
    const argv = argvOf(server);
    for (const flag of WANTED) expect(argv).toContain(flag);
    expect(argv.some((a) => /async-context-frame/.test(a))).toBe(WANTED.length > 0);
    expect(await withStartupLine(p)).not.toMatch(/notice: tracing/);
  });

  it('started without the launcher, it says so where the flag is needed; untraced, nothing', async () => {
    const traced = startProc(TRACED);
    expect(/notice: tracing .* without --experimental-async-context-frame/.test(await withStartupLine(traced))).toBe(
      WANTED.length > 0,
    );
    const plain = startProc({});
    expect(await withStartupLine(plain)).not.toMatch(/notice: tracing/);
  });
});
