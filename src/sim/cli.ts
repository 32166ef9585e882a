/**
 * Standalone simulator (`chainproxy-sim`, or `npm run simulator --` in a
 * clone): --port 9001 --block-interval 1000 [--seed N] [--advertised-url URL]
 */
import { parseArgs } from 'node:util';
import { DEFAULT_START_HEIGHT, startSimulator } from './server.js';
import { parseStartTime } from './time.js';

const HELP = `chainproxy chain simulator

Usage: chainproxy-sim [options]   (in a clone: npm run simulator -- [options])

  --port N             listen port (default 9001; 0 = any free port)
  --host H             listen address (default 127.0.0.1)
  --block-interval MS  one block every MS milliseconds (default 15000; 0 = only via POST /_sim/advance)
  --seed N             chain seed (default 1); same seed + same head => same responses
  --start-height N     initial head height (default ${DEFAULT_START_HEIGHT})
  --finality-depth N   blocks within N of the head are not final (default 15)
  --advertised-url U   base URL used in next/previous links (default: own URL)
  --start-time T       time of the start head: Unix ms, ISO date, or 'fixture' (the recorded
                       fixtures' 2020 alignment); default: now
  --internal-transfers calls pay internal transfers to addresses no tx names (shown
                       only in their address/info balance); default off
  --log                log requests
  --help               this text

Control plane: GET /_sim/stats, POST /_sim/faults, POST /_sim/faults/reset, POST /_sim/advance {"n":N}
`;

function num(v: string | undefined, name: string, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`invalid --${name}: ${v}\n`);
    process.exit(2);
  }
  return n;
}

function startTimeArg(v: string): number | 'fixture' {
  const t = parseStartTime(v);
  if (t === null) {
    process.stderr.write(`invalid --start-time: ${v}\n`);
    process.exit(2);
  }
  return t;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'block-interval': { type: 'string' },
      seed: { type: 'string' },
      'start-height': { type: 'string' },
      'finality-depth': { type: 'string' },
      'advertised-url': { type: 'string' },
      'start-time': { type: 'string' },
      'internal-transfers': { type: 'boolean' },
      log: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const sim = await startSimulator({
    port: num(values.port, 'port', 9001),
    host: values.host ?? '127.0.0.1',
    blockIntervalMs: num(values['block-interval'], 'block-interval', 15_000),
    seed: num(values.seed, 'seed', 1),
    startHeight: num(values['start-height'], 'start-height', DEFAULT_START_HEIGHT),
    finalityDepth: num(values['finality-depth'], 'finality-depth', 15),
    ...(values['advertised-url'] ? { advertisedUrl: values['advertised-url'] } : {}),
    ...(values['start-time'] !== undefined ? { startTime: startTimeArg(values['start-time']) } : {}),
    internalTransfers: values['internal-transfers'] ?? false,
    logger: values.log ?? false,
  });
  process.stdout.write(
    `chain simulator listening on ${sim.url} (head ${sim.chain.head()}, seed ` +
      `${sim.chain.seed}${sim.chain.internalTransfers ? ', internal transfers' : ''})\n`,
  );
  const stop = (): void => {
    void sim.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.message : e) + '\n');
  process.exit(1);
});
