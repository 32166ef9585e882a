/**
 * SIGHUP: CONFIG_FILE (and the environment, unchanged since start) read again
 * and validated as at start. Invalid: every problem logged, the running
 * configuration kept. Valid: the live settings (src/config/reload-classes.ts)
 * applied in place through the swap points (live-settings.ts), keeping the
 * cache, the streams and every connection; the changed settings that need a
 * restart named in a warning and left at their running values.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import { configChanges, withLiveSettings } from '../config/reload-diff.js';
import type { Config } from '../config/types.js';
import type { LiveSettings } from './live-settings.js';

export interface Running {
  /** The configuration as read (what the next reload is compared with). */
  declared: Config;
  /** The configuration in use (the declared one, with what start-up added: the simulator's URL). */
  used: Config;
}

export interface ReloadDeps {
  /** Reads and validates the configuration again (throws ConfigError). */
  load: () => Config;
  live: LiveSettings;
  logger: Logger;
}

/** One reload; returns the configuration running after it. */
export function reload(running: Running, d: ReloadDeps): Running {
  const at = new Date().toISOString();
  let next: Config;
  try {
    next = d.load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    d.live.record({ at, result: 'invalid', applied: [], restartNeeded: [], errors: [...err.errors] });
    d.logger.error(
      { signal: 'SIGHUP', errors: err.errors },
      `reload refused: ${err.errors.length} problem(s) in the configuration; the running configuration is kept`,
    );
    return running;
  }
  const changes = configChanges(running.declared, next);
  const after: Running = {
    declared: withLiveSettings(running.declared, next),
    used: withLiveSettings(running.used, next),
  };
  // Said before it is applied: a new LOG_LEVEL must not hide the line that reports it.
  d.logger.info({ signal: 'SIGHUP', applied: changes.live }, 'configuration reloaded');
  if (changes.restart.length > 0)
    d.logger.warn(
      { signal: 'SIGHUP', restartNeeded: changes.restart },
      `reload: changed settings that apply only after a restart (running values kept): ${changes.restart.join(', ')}`,
    );
  d.live.record({ at, result: 'applied', applied: changes.live, restartNeeded: changes.restart, errors: [] });
  d.live.apply(after.used);
  return after;
}
