/**
 * The primary's message to a worker that died an instant ago (src/cluster/tell.ts):
 * a real child process, killed, its exit not yet read by this process, so its
 * channel still looks connected. A plain send raises an EPIPE 'error' event
 * there, which ends a primary that has no listener; tell() drops it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tell } from '../../src/cluster/tell.js';
import { untilEmitted } from '../helpers/until.js';

/** The inode of the child's end of its IPC channel (Linux /proc). */
function channelInode(pid: number): string {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  const fd = env.find((e) => e.startsWith('NODE_CHANNEL_FD='))!.split('=')[1]!;
  return /socket:\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))![1]!;
}

/** Blocks this event loop (so the exit is not read) until the kernel has closed the child's end. */
function untilClosed(inode: string): void {
  const open = (): boolean =>
    readFileSync('/proc/net/unix', 'utf8')
      .split('\n')
      .some((l) => l.trim().split(/\s+/)[6] === inode);
  while (open());
}

async function deadButConnected(): Promise<{ child: ChildProcess; errors: Error[] }> {
  const child = fork('-e', ['process.send("up"); setInterval(() => {}, 1000)'], { execArgv: [] });
  const errors: Error[] = [];
  child.on('error', (e) => errors.push(e));
  await new Promise((resolve) => child.once('message', resolve));
  const inode = channelInode(child.pid!);
  child.kill('SIGKILL');
  untilClosed(inode);
  expect(child.connected).toBe(true);
  return { child, errors };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe.runIf(process.platform === 'linux')('tell: a message to a worker that just died', () => {
  it('a plain send raises an error event (the defect guarded against)', async () => {
    const { child, errors } = await deadButConnected();
    child.send({ cp: 1 });
    await untilEmitted(child, 'error', () => errors.length > 0, 'the EPIPE error event');
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['EPIPE']);
  });

  it('tell() raises none: the write failure is dropped and the exit is still seen', async () => {
    const { child, errors } = await deadButConnected();
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    tell({ isConnected: () => child.connected, send: (m, done) => child.send(m, done) }, { cp: 1 });
    expect(await exited).toBe('SIGKILL');
    await settle();
    expect(errors).toEqual([]);
  });
});
