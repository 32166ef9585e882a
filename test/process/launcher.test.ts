/**
 * The shipped entry point (src/bin/chainproxy.ts, behind `npm start` and
 * `npx chainproxy`) runs the server under the heap cap derived from
 * CACHE_MAX_BYTES and STREAM_ACTIVITY_WATCH_BYTES (96 MiB + both, and a young
 * generation of 3 x 16 MiB on every Node.js line) unless the operator set one, passes
 * signals on, and never leaves the server running without it.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { accepts, heapLimitFor, LAUNCHER, listening, startProc } from './kit.js';

const SIM = { SIM_BLOCK_INTERVAL_MS: '1000' };

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describe('the chainproxy entry point', { timeout: 120_000 }, () => {
  it('caps the heap from CACHE_MAX_BYTES in a server process of its own; SIGTERM to it drains the server', async () => {
    const p = startProc({ ...SIM, CACHE_MAX_BYTES: '32MiB' }, { entry: LAUNCHER });
    const line = await listening(p);
    expect(line['pid']).not.toBe(p.child.pid);
    // --max-old-space-size=144 (96 + 32 + the 16 MiB watch budget) and a 3 x 16 MiB young generation, on every line.
    expect(line['heapLimitMiB']).toBe(144 + 48);
    const url = String(line['url']);
    expect((await request(`${url}/block/max`)).statusCode).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.lines.some((l) => l['msg'] === 'bye' && l['pid'] === line['pid'])).toBe(true);
    expect(await accepts(url)).toBe(false);
  });

  it("an operator's heap cap (NODE_OPTIONS) wins: the server runs in the same process", async () => {
    const p = startProc(
      { ...SIM, CACHE_MAX_BYTES: '32MiB', NODE_OPTIONS: '--max-old-space-size=300' },
      { entry: LAUNCHER },
    );
    const line = await listening(p);
    expect(line['pid']).toBe(p.child.pid);
    // Untouched: this line's own young generation.
    expect(line['heapLimitMiB']).toBe(heapLimitFor(['--max-old-space-size=300']));
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it(
    'the default bounds (256 MiB cache, 16 MiB watches) ' +
      'give a 368 MiB old space; the server drains when its launcher is killed',
    async () => {
      const p = startProc(SIM, { entry: LAUNCHER });
      const line = await listening(p);
      expect(line['heapLimitMiB']).toBe(368 + 48);
      const url = String(line['url']);
      p.child.kill('SIGKILL');
      await p.until(
        () => p.lines.some((l) => l['msg'] === 'bye' && l['pid'] === line['pid']),
        'the orphaned server to drain',
        30_000,
      );
      await waitFor(async () => !(await accepts(url)), 30_000, 'the port to close');
    },
  );

  it('--version and bad settings are answered by the entry point (exit 0, exit 2)', async () => {
    const v = startProc({}, { entry: LAUNCHER, args: ['--version'] });
    expect(await v.exited).toBe(0);
    expect(v.stdout()).toMatch(/^chainproxy \d+\.\d+\.\d+/);
    const bad = startProc({ CACHE_MAX_BYTE: '32MiB' }, { entry: LAUNCHER });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain(
      'CACHE_MAX_BYTE: expected a known setting, got an unknown variable that resembles CACHE_MAX_BYTES',
    );
  });

  it('a server process killed by a signal (an OOM kill) is said in one line; the entry point exits 137', async () => {
    const p = startProc(SIM, { entry: LAUNCHER });
    const line = await listening(p);
    expect(line['pid']).not.toBe(p.child.pid);
    process.kill(Number(line['pid']), 'SIGKILL');
    expect(await p.exited).toBe(137);
    expect(p.child.signalCode).toBeNull();
    expect(p.stderr()).toContain(`chainproxy: the server process (pid ${String(line['pid'])}) was killed by SIGKILL`);
    expect(p.stderr()).toContain('out-of-memory killer');
  });
});
