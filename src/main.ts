/**
 * `npm start`: validate the configuration once, start the built-in chain
 * simulator when no upstream is configured (loaded only then), serve, and shut
 * down gracefully on SIGTERM/SIGINT: stop accepting, let in-flight requests
 * finish until SHUTDOWN_TIMEOUT_MS, answer the rest 503, close pools, exit 0.
 */
import { pino } from 'pino';
import { loadConfig, ConfigError } from './config/load.js';
import { helpText } from './config/help.js';
import { startProxy } from './app.js';
import type { SimulatorHandle } from './sim/index.js';

/** Past the drain deadline, only a close that hangs (a stuck Redis quit) can hold the process. */
const LAST_RESORT_MS = 5000;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(helpText());
    return;
  }
  let config;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`chainproxy: invalid configuration\n${err.message}\n(see chainproxy --help)\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({ level: config.logLevel });

  let simulator: SimulatorHandle | null = null;
  if (config.upstreamUrls.length === 0) {
    const { startSimulator } = await import('./sim/index.js');
    simulator = await startSimulator({
      port: 0,
      blockIntervalMs: config.simulator.blockIntervalMs,
      seed: config.simulator.seed,
      advertisedUrl: 'http://data.nebulas.io',
    });
    config = { ...config, upstreamUrls: [simulator.url] };
    logger.info(
      { simulator: simulator.url },
      `no UPSTREAM_URLS configured: serving the built-in chain simulator; try ${config.publicBaseUrl}/block/max`,
    );
  }

  const proxy = await startProxy(config, { logger, upstreamIsSimulator: simulator !== null });
  logger.info({ url: proxy.url, upstreams: config.upstreamUrls, publicBaseUrl: config.publicBaseUrl, redis: config.redisUrl !== null }, 'chainproxy listening');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal, shutdownTimeoutMs: config.shutdownTimeoutMs }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown hung past the drain deadline; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + LAST_RESORT_MS);
    force.unref();
    void (async () => {
      await proxy.close();
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
}

main().catch((err: unknown) => {
  process.stderr.write(`chainproxy: failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
