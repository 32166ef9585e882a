/**
 * A log reader that stops reading (a stuck log shipper: stdout a pipe into a
 * process that never reads) never blocks serving or shutdown: lines that do
 * not fit the bounded buffer are dropped and counted, and SIGTERM exits
 * within the drain deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startProc, withStartupLine } from './kit.js';

let fake: FakeUpstream | null = null;
let reader: ChildProcess | null = null;
afterEach(async () => {
  reader?.kill('SIGKILL');
  reader = null;
  await fake?.close();
  fake = null;
});

async function dropped(url: string): Promise<number> {
  const text = await (await request(`${url}/metrics`, { headersTimeout: 5000 })).body.text();
  return Number(/^chainproxy_log_lines_dropped_total (\d+)$/m.exec(text)?.[1]);
}

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describe('standard output nobody reads', { timeout: 120_000 }, () => {
  it('serving goes on, dropped lines are counted, SIGTERM exits within the drain deadline', async () => {
    fake = await startFakeUpstream();
    // The stuck log shipper: a process whose stdin is the proxy's stdout, never read.
    reader = spawn('sleep', ['600'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const p = startProc(
      {
        UPSTREAM_URLS: fake.url,
        ACCESS_LOG: 'all',
        RATE_LIMIT_ENABLED: 'false',
        METRICS_CACHE_MS: '0',
        SHUTDOWN_TIMEOUT_MS: '1000',
      },
      { stdout: reader.stdin! },
    );
    const url = /serving the API at (\S+) /.exec(await withStartupLine(p))?.[1];
    expect(url, p.stderr()).toBeDefined();

    // An access-log line per request until the socket buffer and the 1 MiB of the proxy are full (about 10 000).
    const started = performance.now();
    let served = 0;
    for (let round = 0; round < 2000 && (await dropped(url!)) === 0; round++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () =>
          request(`${url}/block/max`, { headersTimeout: 5000, bodyTimeout: 5000 }).then(
            async (r) => (await r.body.text(), r.statusCode),
          ),
        ),
      );
      served += answers.filter((s) => s === 200).length;
    }
    const droppedLines = await dropped(url!);
    // Still serving after the reader stalled.
    expect((await request(`${url}/block/max`, { headersTimeout: 5000 })).statusCode).toBe(200);
    expect(served).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeLessThan(60_000);

    const signalled = performance.now();
    p.child.kill('SIGTERM');
    // SHUTDOWN_TIMEOUT_MS 1000 (nothing in flight: far less), generous for a loaded machine.
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('still running'), 6000))]);
    expect(code).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(4000);
    expect(droppedLines).toBeGreaterThan(0);
  }, 90_000);

  it('a file as standard output gets every line, the last one included', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'chainproxy-log-')), 'out.log');
    const fd = openSync(path, 'w');
    const p = startProc({ SIM_BLOCK_INTERVAL_MS: '1000' }, { stdout: fd });
    closeSync(fd);
    await withStartupLine(p);
    p.child.kill('SIGTERM');
    const code = await p.exited;
    expect(code).toBe(0);
    const msgs = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toContain('chainproxy listening');
    expect(msgs.at(-1)).toBe('bye');
  });
});
