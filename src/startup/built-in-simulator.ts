/**
 * The built-in chain simulator, started when no upstream is configured (loaded
 * only then), with the warn line that says its data is simulated.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { SimulatorHandle } from '../sim/index.js';

export async function startBuiltInSimulator(config: Config, logger: Logger): Promise<SimulatorHandle> {
  const { startSimulator } = await import('../sim/index.js');
  const simulator = await startSimulator({
    port: 0,
    blockIntervalMs: config.simulator.blockIntervalMs,
    seed: config.simulator.seed,
    advertisedUrl: 'http://data.nebulas.io',
  });
  logger.warn(
    { simulator: simulator.url },
    'no UPSTREAM_URLS configured: serving the built-in chain simulator (simulated data, not a real chain)',
  );
  return simulator;
}
