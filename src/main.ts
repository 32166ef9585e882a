/**
 * `npm start` / `chainproxy` (through src/bin/chainproxy.ts): read the flags
 * and validate the configuration once (exit 2), bind PORT before anything
 * else starts (exit 1 when busy; requests until the server is ready are
 * answered 503), start the built-in chain simulator when no
 * upstream is configured (loaded only then), serve, and shut down gracefully
 * on SIGTERM/SIGINT: after SIGTERM a lame duck of DRAIN_DELAY_MS (/readyz
 * answers 503, everything still served), then stop accepting, let in-flight requests finish until
 * SHUTDOWN_TIMEOUT_MS, answer the rest 503, close pools, exit 0. SIGHUP
 * reloads the configuration in place (src/startup/reload.ts).
 * WORKERS > 1: this process is the cluster primary (src/cluster/primary.ts)
 * and each worker runs this file again, listening through node:cluster.
 */
import { startBuiltInSimulator } from './startup/built-in-simulator.js';
import { getHeapStatistics } from 'node:v8';
import { pino } from 'pino';
import type { FastifyListenOptions } from 'fastify';
import { loadConfig, ConfigError } from './config/load.js';
import { parseArgs } from './config/cli.js';
import { helpText } from './config/help.js';
import { VERSION } from './config/version.js';
import { bindPort } from './startup/bind.js';
import { notReadyAnswer } from './startup/not-ready.js';
import { startupLine } from './startup/banner.js';
import { warnDefaultBaseUrl } from './startup/shared-namespace.js';
import { diagnose, diagnosisLine } from './upstream/diagnose.js';
import { logDestination } from './common/log-destination.js';
import type { SimulatorHandle } from './sim/index.js';
import { workerNumber } from './cluster/worker-number.js';
import { SIMULATOR_ENV } from './cluster/protocol.js';
import { nodeLineWarning } from './startup/node-line.js';
import { reload, type Running } from './startup/reload.js';
import { startTracing, stopTracing, tracingConfigured } from './tracing/tracing.js';
import { contextFrameNotice } from './startup/context-frame.js';

/** Past the drain deadline, only a close that hangs (a stuck Redis quit) can hold the process. */
const LAST_RESORT_MS = 5000;

function stop(code: number, message: string): never {
  process.stderr.write(`chainproxy: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const cli = parseArgs(process.argv.slice(2));
  if (cli.kind === 'help') return void process.stdout.write(helpText());
  if (cli.kind === 'version') return void process.stdout.write(`chainproxy ${VERSION}\n`);
  if (cli.kind === 'error') stop(2, `${cli.message}\n(see chainproxy --help)`);
  // Once per machine: a cluster worker runs the same node as its primary, which said it.
  const unsupported = workerNumber() === null ? nodeLineWarning() : null;
  if (unsupported !== null) process.stderr.write(`chainproxy: ${unsupported}\n`);
  const frame = contextFrameNotice(tracingConfigured(process.env), process.execArgv, process.env['NODE_OPTIONS']);
  if (frame !== null && workerNumber() === null) process.stderr.write(`chainproxy: ${frame}\n`);
  let config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) stop(2, `invalid configuration\n${err.message}\n(see chainproxy --help)`);
    throw err;
  }
  if (cli.kind === 'check') {
    const { runCheck } = await import('./startup/check.js');
    process.exit(await runCheck(config, (line) => process.stdout.write(`${line}\n`)));
  }
  // Until the reload handler is installed (below), a SIGHUP is remembered instead of ending the process.
  let hupEarly = false;
  const early = (): void => void (hupEarly = true);
  process.on('SIGHUP', early);
  const root = pino({ level: config.logLevel }, logDestination());
  // WORKERS > 1: this process forks and coordinates the workers (src/cluster/primary.ts), each of which runs this file.
  const worker = workerNumber();
  if (worker === null && config.workers > 1) {
    process.removeListener('SIGHUP', early);
    const { runPrimary } = await import('./cluster/primary.js');
    return runPrimary(config, root.child({ role: 'primary' }), stop, () =>
      loadConfig(process.env, process.argv.slice(2)),
    );
  }
  const logger = worker === null ? root : root.child({ worker });

  // Until the server is ready, a request on the port is answered 503 (never held). A worker listens through
  // node:cluster instead: until it is ready, connections go to the workers that are.
  const bind =
    worker !== null
      ? null
      : await bindPort(
          config.port,
          config.host,
          notReadyAnswer({
            upstreamIsSimulator: config.upstreamUrls.length === 0,
            headersTimeoutMs: config.http.headersTimeoutMs,
          }),
        );
  if (bind !== null && !bind.ok) stop(1, bind.message);
  // As read, before start-up adds the simulator's URL: what a reload compares a new file with.
  const declared = config;
  if (worker === null) warnDefaultBaseUrl(config, logger);

  let simulator: SimulatorHandle | null = null;
  const sharedSimulator = worker === null ? undefined : process.env[SIMULATOR_ENV];
  if (sharedSimulator !== undefined) config = { ...config, upstreamUrls: [sharedSimulator] };
  else if (config.upstreamUrls.length === 0) {
    simulator = await startBuiltInSimulator(config, logger);
    config = { ...config, upstreamUrls: [simulator.url] };
  }

  const simulated = simulator !== null || sharedSimulator !== undefined;
  // Loaded only to serve (as the check above): --help, --version and a bad setting answer without them.
  const { buildProxy } = await import('./app.js');
  // Before the server is built: its entrance and the upstream attempts read it once.
  await startTracing(process.env);
  const built = await buildProxy(config, {
    logger,
    upstreamIsSimulator: simulated,
    ...(worker !== null ? { worker } : {}),
  });
  built.pool.onFirstProbeFailure((base, err) =>
    process.stderr.write(`chainproxy: upstream probe ${diagnosisLine(diagnose(base, err))}\n`),
  );
  // The socket bound above; the host is only echoed (Fastify's listen options have no handle field).
  const listenOn: FastifyListenOptions =
    bind === null ? { host: config.host, port: config.port } : Object.assign({ host: config.host }, bind.bound);
  const url = (await built.app.listen(listenOn)).replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');
  // Signals are handled before readiness is announced: a SIGTERM right after it drains.
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      // A second signal ends the lame duck (a no-op once the drain began).
      if (signal !== 'SIGHUP') built.hurry();
      return;
    }
    closing = true;
    // The lame duck is for a balancer that reads /readyz before it stops sending: SIGTERM (an orchestrator's) only.
    const { drainDelayMs, shutdownTimeoutMs } = built.live.current;
    const lameDuckMs = signal === 'SIGTERM' ? drainDelayMs : 0;
    logger.info({ signal, shutdownTimeoutMs, drainDelayMs: lameDuckMs }, 'shutting down: draining in-flight requests');
    const force = setTimeout(
      () => {
        logger.error('shutdown hung past the drain deadline; exiting');
        process.exit(1);
      },
      lameDuckMs + shutdownTimeoutMs + LAST_RESORT_MS,
    );
    force.unref();
    void (async () => {
      await built.close(lameDuckMs);
      await stopTracing();
      await simulator?.close();
      logger.info('bye');
      process.exit(0);
    })().catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  let running: Running = { declared, used: config };
  const load = () => loadConfig(process.env, process.argv.slice(2));
  const onHup = (): void => {
    if (closing) return;
    logger.info({ signal: 'SIGHUP' }, 'SIGHUP: reloading the configuration');
    try {
      running = reload(running, { load, live: built.live, logger });
    } catch (err) {
      logger.error({ err }, 'reload failed; the running configuration is kept');
    }
  };
  process.removeListener('SIGHUP', early);
  process.on('SIGHUP', onHup);
  if (hupEarly) onHup();
  // Started by the launcher (src/bin/chainproxy.ts): its exit, however abrupt, drains this process too.
  // (A cluster worker's channel is node:cluster's: a worker whose primary is gone exits at once.)
  if (worker === null && process.channel !== undefined) {
    process.channel.unref();
    process.on('disconnect', () => shutdown('launcher exited'));
  }

  const heapLimitMiB = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  logger.info(
    {
      url,
      upstreams: config.upstreamUrls,
      publicBaseUrl: config.publicBaseUrl,
      redis: config.redisUrl !== null,
      simulated,
      version: VERSION,
      heapLimitMiB,
    },
    'chainproxy listening',
  );
  // With PORT=0 the default PUBLIC_BASE_URL names no real port: show the bound one.
  const base = config.publicBaseUrl === 'http://localhost:0' ? url : config.publicBaseUrl;
  // After the first probe round, so the line says whether an upstream answered (its failures are above it).
  await built.pool.firstProbe;
  // One start-up line per machine: the first worker's.
  if (worker === null || worker === 1)
    process.stderr.write(
      startupLine(
        config,
        base,
        simulated,
        built.pool.status().some((u) => u.healthy),
      ),
    );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `chainproxy: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
