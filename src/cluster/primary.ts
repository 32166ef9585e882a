/**
 * WORKERS > 1: this process is the cluster primary. It serves no request: it
 * checks PORT, starts the built-in simulator once when no upstream is set
 * (every worker reads the same chain), forks workers 1..N (each runs
 * src/main.ts and listens on PORT through node:cluster, which shares the
 * socket), and is their fleet without Redis (hub.ts).
 *
 * A worker that dies, whatever its age, is replaced under the same number
 * (logged), after a pause that doubles while replacements die young (1 s up
 * to 30 s); the pending replacement holds the primary alive. If none has
 * ever listened, start-up failed: the primary stops the others and exits 1;
 * after MAX_YOUNG_DEATHS young deaths in a row it gives up the same way,
 * saying why. It never exits 0 unless told to stop.
 * SIGTERM and SIGINT are passed to every worker (any other reason to stop as
 * SIGTERM), which drains as a single process does; the primary exits 0 once all have exited 0 (1 if one did
 * not, or past SHUTDOWN_TIMEOUT_MS + 5 s). SIGHUP is passed on: each worker
 * reloads CONFIG_FILE. Its own launcher exiting (src/startup/relaunch.ts)
 * counts as SIGTERM.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import { checkPort } from '../startup/bind.js';
import { startBuiltInSimulator } from '../startup/built-in-simulator.js';
import { warnDefaultBaseUrl } from '../startup/shared-namespace.js';
import type { SimulatorHandle } from '../sim/index.js';
import { Hub } from './hub.js';
import { isOurs, SIMULATOR_ENV, WORKER_ENV, type ToPrimary, type ToWorker } from './protocol.js';
import { tell, type Recipient } from './tell.js';

const LAST_RESORT_MS = 5000;
/** A worker that lived less than this died young: the next replacement waits longer. */
const YOUNG_MS = 10_000;
const MAX_PAUSE_MS = 30_000;
/** This many workers in a row dying young: the primary gives up (exit 1) and leaves it to its supervisor. */
const MAX_YOUNG_DEATHS = 10;

/** `reread`: the configuration read again (SIGHUP; throws when invalid): the drain timings follow the workers'. */
export async function runPrimary(
  config: Config,
  logger: Logger,
  stop: (code: number, message: string) => never,
  reread: () => Config,
): Promise<void> {
  let timings = { drainDelayMs: config.drainDelayMs, shutdownTimeoutMs: config.shutdownTimeoutMs };
  const port = await checkPort(config.port, config.host);
  if (!port.ok) stop(1, port.message);
  warnDefaultBaseUrl(config, logger);
  let simulator: SimulatorHandle | null = null;
  if (config.upstreamUrls.length === 0) {
    simulator = await startBuiltInSimulator(config, logger);
  }
  const hub = new Hub(config.workersLendWaitMs);
  const workers = new Map<number, Worker>();
  let everListened = false;
  let closing = false;
  let failed = false;
  let youngDeaths = 0;
  const replacements = new Set<NodeJS.Timeout>();

  const fork = (n: number): void => {
    const env: Record<string, string> = { [WORKER_ENV]: String(n) };
    if (simulator !== null) env[SIMULATOR_ENV] = simulator.url;
    const w = cluster.fork(env);
    const started = Date.now();
    let listened = false;
    workers.set(n, w);
    const to: Recipient<ToWorker> = { isConnected: () => w.isConnected(), send: (m, done) => w.send(m, done) };
    w.on('online', () => hub.join(n, (m) => void tell(to, m)));
    // Write failures are dropped by tell(); any other channel error is logged, never fatal to the primary.
    w.on('error', (err) => logger.warn({ worker: n, err }, 'worker channel error'));
    w.on('message', (m: unknown) => {
      if (isOurs<ToPrimary>(m)) hub.receive(n, m);
    });
    w.on('listening', () => {
      listened = everListened = true;
    });
    w.on('exit', (code, signal) => {
      hub.leave(n);
      workers.delete(n);
      if (closing && code !== 0) failed = true;
      if (closing) return void (workers.size === 0 && finish());
      if (!everListened && !listened) {
        logger.error({ worker: n, code, signal }, 'worker failed to start; stopping');
        return shutdown('start-up failed');
      }
      youngDeaths = Date.now() - started < YOUNG_MS ? youngDeaths + 1 : 0;
      if (youngDeaths >= MAX_YOUNG_DEATHS) {
        logger.error(
          { worker: n, code, signal, youngDeaths },
          `giving up: ${youngDeaths} workers in a row died within ${YOUNG_MS / 1000} s of starting`,
        );
        return shutdown('workers keep dying');
      }
      const pauseMs = youngDeaths === 0 ? 0 : Math.min(MAX_PAUSE_MS, 1000 * 2 ** (youngDeaths - 1));
      logger.warn({ worker: n, code, signal, pauseMs }, 'worker exited; starting a replacement');
      // Not unref'd: with every worker dead, this timer is what keeps the primary (and its promise to serve) alive.
      const timer = setTimeout(() => {
        replacements.delete(timer);
        if (!closing) fork(n);
      }, pauseMs);
      replacements.add(timer);
    });
  };

  const finish = (): void => {
    hub.close();
    void (async () => {
      await simulator?.close();
      logger.info({ failed }, 'bye');
      process.exit(failed ? 1 : 0);
    })();
  };

  const shutdown = (signal: string): void => {
    if (closing) {
      // A second signal is passed on too: it ends each worker's lame duck.
      if (signal === 'SIGTERM' || signal === 'SIGINT') for (const w of workers.values()) w.process.kill(signal);
      return;
    }
    closing = true;
    if (signal === 'start-up failed' || signal === 'workers keep dying') failed = true;
    for (const t of replacements) clearTimeout(t);
    logger.info({ signal, workers: workers.size }, 'shutting down: every worker drains');
    // SIGINT goes on as SIGINT (no lame duck in the workers); anything else as SIGTERM.
    const passed = signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
    const lameDuckMs = passed === 'SIGTERM' ? timings.drainDelayMs : 0;
    setTimeout(
      () => {
        logger.error('workers still running past the drain deadline; killing them');
        for (const w of workers.values()) w.process.kill('SIGKILL');
        process.exit(1);
      },
      lameDuckMs + timings.shutdownTimeoutMs + LAST_RESORT_MS,
    ).unref();
    if (workers.size === 0) return finish();
    for (const w of workers.values()) w.process.kill(passed);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown(signal));
  process.on('SIGHUP', () => {
    if (closing) return;
    logger.info({ workers: workers.size }, 'SIGHUP: every worker reloads CONFIG_FILE');
    for (const w of workers.values()) w.process.kill('SIGHUP');
    try {
      const next = reread();
      timings = { drainDelayMs: next.drainDelayMs, shutdownTimeoutMs: next.shutdownTimeoutMs };
    } catch {
      // Invalid: every worker logs the problems and keeps its configuration; so does this one.
    }
  });
  // A safety net: an empty event loop while serving is a defect, never a clean exit.
  process.on('beforeExit', () => {
    if (closing) return;
    logger.error({ workers: workers.size }, 'cluster primary has nothing left to run while it should serve; exiting 1');
    process.exit(1);
  });
  if (process.channel !== undefined) {
    process.channel.unref();
    process.on('disconnect', () => shutdown('launcher exited'));
  }

  logger.info(
    { workers: config.workers, port: config.port, simulated: simulator !== null },
    'cluster primary: starting workers',
  );
  for (let n = 1; n <= config.workers; n++) fork(n);
}
