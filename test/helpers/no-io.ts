/**
 * Setup file of the unit project: a unit test is a pure rule, so opening a
 * socket (listen or connect) or starting a child process fails the test that
 * tried, naming what it did. Such a test belongs to the integration project
 * (a file named `<name>.test.ts` rather than `<name>.unit.test.ts`).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterAll, vi } from 'vitest';

function refuse(what: string): never {
  throw new Error(`unit tests open no socket and start no process (${what}): name the file <name>.test.ts`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('listen');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('connect');
};
const processes = childProcess as unknown as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) {
  processes[name] = () => refuse(name);
}
syncBuiltinESMExports();

// Files share their worker (isolate: false): nothing a file changed outlives it.
afterAll(() => {
  vi.useRealTimers();
});
