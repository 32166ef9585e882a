/**
 * The swap points of a reload (SIGHUP, src/startup/reload.ts): the running
 * configuration, which the subsystems that read a live setting
 * (src/config/reload-classes.ts) consult at each use or are told of through
 * an applier registered here, and the last reload's outcome for /status and
 * the status page, counted in
 *
 *   chainproxy_config_reloads_total{result}   result: applied | invalid
 *   chainproxy_config_restart_pending         1 while CONFIG_FILE changes a restart-only setting
 */
import type { Counter, Gauge, Registry } from 'prom-client';
import type { Config } from '../config/types.js';
import { counter, gauge } from '../metrics/declare.js';

export type ReloadResult = 'applied' | 'invalid';

/** The last reload, as /status shows it. */
export interface ReloadStatus {
  /** ISO time of the reload. */
  at: string;
  result: ReloadResult;
  /** Live settings it changed. */
  applied: string[];
  /** Changed settings that wait for a restart. */
  restartNeeded: string[];
  /** Why the file was refused (result invalid). */
  errors: string[];
}

export class LiveSettings {
  #current: Config;
  readonly #appliers: Array<(next: Config) => void> = [];
  #last: ReloadStatus | null = null;
  readonly #reloads: Counter<'result'>;
  readonly #pending: Gauge;

  constructor(config: Config, registry: Registry) {
    this.#current = config;
    this.#reloads = counter(registry, 'config_reloads_total', {
      start: [{ result: 'applied' }, { result: 'invalid' }],
    });
    this.#pending = gauge(registry, 'config_restart_pending');
  }

  /** The running configuration (live settings as last reloaded). */
  get current(): Config {
    return this.#current;
  }

  /** `apply` is called with each new running configuration. */
  onChange(apply: (next: Config) => void): void {
    this.#appliers.push(apply);
  }

  /** Makes `next` the running configuration and tells every subsystem. */
  apply(next: Config): void {
    this.#current = next;
    for (const apply of this.#appliers) apply(next);
  }

  /** Records a reload's outcome. */
  record(status: ReloadStatus): void {
    this.#last = status;
    this.#reloads.inc({ result: status.result });
    if (status.result === 'applied') this.#pending.set(status.restartNeeded.length > 0 ? 1 : 0);
  }

  /** The last reload; null before one. */
  status(): ReloadStatus | null {
    return this.#last;
  }
}
