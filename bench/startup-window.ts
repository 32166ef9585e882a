/**
 * Requests during start-up: N starts (default 100) of the shipped entry point
 * (`node dist/bin/chainproxy.js`, the built-in simulator), each with a new
 * connection sending `GET /healthz` every few ms from the spawn until shortly
 * after the listening line. Every request must be refused (nothing bound
 * yet), answered 503 with Retry-After (bound, not ready) or answered 200
 * (ready); one held `--hold` ms (30 s) or reset without an answer is a
 * failure. The slowest answer is reported (a loaded machine answers late, a
 * held request never).
 *
 *   npx tsx bench/startup-window.ts [--starts N] [--every MS] [--hold MS]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { portBelowEphemeral, probeThroughout } from '../test/helpers/startup-probe.js';
import { ROOT } from './lib/proc.js';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '100' },
    every: { type: 'string', default: '3' },
    hold: { type: 'string', default: '30000' },
  },
});
const STARTS = Math.max(1, Number(values.starts) || 100);
const EVERY_MS = Math.max(1, Number(values.every) || 3);
/** An answer later than this counts as none (a slow machine can take seconds; a held request never answers). */
const HOLD_MS = Math.max(1000, Number(values.hold) || 30_000);

async function once(): Promise<Awaited<ReturnType<typeof probeThroughout>>> {
  const port = await portBelowEphemeral();
  const child = spawn(process.execPath, ['dist/bin/chainproxy.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ACCESS_LOG: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let out = '';
  const up = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"msg":"chainproxy listening"')) resolve();
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${err.trim()}`)));
  }).then(() => new Promise((r) => setTimeout(r, 200)));
  try {
    const t = await probeThroughout(port, '/healthz', up, {
      everyMs: EVERY_MS,
      holdMs: HOLD_MS,
      ready: (s) => s === 200,
    });
    await up; // a start that failed is reported, not counted
    return t;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const built = spawn(process.execPath, ['scripts/ensure-built.mjs'], { cwd: ROOT, stdio: 'inherit' });
  await new Promise((r) => built.once('exit', r));
  const total = {
    refused: 0,
    starting: 0,
    ready: 0,
    unanswered: 0,
    wrong: 0,
    startsWithUnanswered: 0,
    startsThatHitTheWindow: 0,
    slowestAnswerMs: 0,
  };
  for (let i = 0; i < STARTS; i++) {
    const t = await once();
    total.refused += t.refused;
    total.starting += t.starting;
    total.ready += t.ready;
    total.unanswered += t.unanswered.length;
    total.wrong += t.wrong.length;
    total.slowestAnswerMs = Math.max(total.slowestAnswerMs, Math.round(t.slowestMs));
    if (t.unanswered.length > 0) total.startsWithUnanswered++;
    if (t.starting > 0) total.startsThatHitTheWindow++;
    if (t.unanswered.length + t.wrong.length > 0)
      process.stderr.write(
        `start ${i}: ${t.unanswered.length} unanswered, ${t.wrong.length} wrong, ` +
          `e.g. ${JSON.stringify([...t.unanswered, ...t.wrong].slice(0, 3))}\n`,
      );
  }
  process.stdout.write(
    `${STARTS} starts of node dist/bin/chainproxy.js (node ${process.version}), GET ` +
      `/healthz every ${EVERY_MS} ms from spawn to listening + 200 ms, held = no ` +
      `answer in ${HOLD_MS} ms\n${JSON.stringify(total, null, 1)}\n`,
  );
  if (total.unanswered + total.wrong > 0) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
