/**
 * What a re-read configuration changes, by setting (a variable's name, or a
 * CONFIG_FILE-only section's key), split by reload-classes.ts into what a
 * reload applies and what waits for a restart; and the running configuration
 * a reload leaves: the live settings from the new one, every other from the
 * running one.
 */
import { FIELDS, setPath } from './fields.js';
import { reloadsLive } from './reload-classes.js';
import type { Config } from './types.js';

/** CONFIG_FILE-only keys (their own checks in load.ts), compared as wholes. */
const FILE_ONLY: readonly string[] = ['apiKeys', 'policies', 'creditCosts', 'pages', 'invalidation.maxAgeByEndpoint'];

function getPath(root: object, key: string): unknown {
  let o: unknown = root;
  for (const part of key.split('.')) o = (o as Record<string, unknown> | undefined)?.[part];
  return o;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Every setting by name with its Config key. */
const SETTINGS: ReadonlyArray<{ name: string; key: string }> = [
  ...FIELDS.map((f) => ({ name: f.env, key: f.key })),
  ...FILE_ONLY.map((key) => ({ name: key, key })),
];

export interface ConfigChanges {
  /** Changed settings a reload applies. */
  live: string[];
  /** Changed settings that keep their running value until a restart. */
  restart: string[];
}

export function configChanges(running: Config, next: Config): ConfigChanges {
  const out: ConfigChanges = { live: [], restart: [] };
  for (const { name, key } of SETTINGS) {
    if (same(getPath(running, key), getPath(next, key))) continue;
    (reloadsLive(name, running, next) ? out.live : out.restart).push(name);
  }
  return out;
}

/** `running` with every live setting taken from `next` (a new object; neither is changed). */
export function withLiveSettings(running: Config, next: Config): Config {
  const out = structuredClone(running);
  for (const { name, key } of SETTINGS)
    if (reloadsLive(name, running, next)) setPath(out, key, structuredClone(getPath(next, key)));
  return out;
}
