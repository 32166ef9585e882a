import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { PrometheusMetrics } from '../metrics/prometheus.js';

/** What every builder of the composition root is given: the settings, the logger, the clock, the metrics. */
export interface Basics {
  config: Config;
  logger: Logger;
  clock: () => number;
  /** The registry and the push side; the scrape-time gauges are pulled once the stages they read exist. */
  prom: PrometheusMetrics;
}
