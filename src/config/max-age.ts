/** `invalidation.maxAgeByEndpoint` of CONFIG_FILE: `{ "<endpoint>": <ms> }`. */
import { ENDPOINT_NAMES } from '../catalogue/types.js';
import { shown } from './validate.js';

const MAX_MS = 24 * 3_600_000;

/** `where` follows each key in messages (` (in config.yaml)`). */
export function checkMaxAgeByEndpoint(
  raw: unknown,
  key: string,
  where: string,
): { value: Partial<Record<string, number>>; errors: string[] } {
  const value: Partial<Record<string, number>> = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { value, errors: [`${key}${where}: expected a map of endpoint name to milliseconds, got ${shown(raw)}`] };
  }
  const errors: string[] = [];
  for (const [name, ms] of Object.entries(raw as Record<string, unknown>)) {
    const at = `${key}.${name}${where}`;
    if (!(ENDPOINT_NAMES as readonly string[]).includes(name))
      errors.push(`${at}: expected an endpoint name (one of ${ENDPOINT_NAMES.join(', ')}), got ${shown(name)}`);
    else if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_MS)
      errors.push(`${at}: expected an integer from 0 to ${MAX_MS}, got ${shown(ms)}`);
    else value[name] = ms;
  }
  return { value, errors };
}
