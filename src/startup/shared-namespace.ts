/**
 * A fleet shares Redis entries only between replicas with one PUBLIC_BASE_URL
 * (bodies carry links built from it). Its default names the replica's own
 * port, so replicas on different ports would silently share nothing.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';

/** The start-up warning for REDIS_URL with the default PUBLIC_BASE_URL; null when there is nothing to say. */
export function defaultBaseUrlWarning(config: Pick<Config, 'redisUrl' | 'publicBaseUrl' | 'port'>): string | null {
  if (config.redisUrl === null || config.publicBaseUrl !== `http://localhost:${config.port}`) return null;
  return (
    'REDIS_URL is set but PUBLIC_BASE_URL is the default ' +
    `(${config.publicBaseUrl}): replicas on other ports get other base URLs, ` +
    'so they share no cached entries; set PUBLIC_BASE_URL to the address clients use, the same on every replica'
  );
}

/** Says the warning, if any, on stderr and in the log: once per machine, after the port was bound. */
export function warnDefaultBaseUrl(config: Pick<Config, 'redisUrl' | 'publicBaseUrl' | 'port'>, logger: Logger): void {
  const unshared = defaultBaseUrlWarning(config);
  if (unshared === null) return;
  process.stderr.write(`chainproxy: warning: ${unshared}\n`);
  logger.warn({ publicBaseUrl: config.publicBaseUrl }, unshared);
}
