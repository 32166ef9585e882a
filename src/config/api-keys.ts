/**
 * The `apiKeys` section of CONFIG_FILE: a list of
 * `{ name, key | sha256, max, windowMs? }`. Names are unique (they label
 * metrics and logs); keys are at least 16 printable characters; a key's value
 * never appears in an error message.
 */
import type { ApiKeyConfig } from './types.js';
import { shown } from './validate.js';

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const SECRET = /^[\x21-\x7e]{16,256}$/;
const SHA256 = /^[0-9a-fA-F]{64}$/;
const MAX_WINDOW_MS = 24 * 3_600_000;

const int = (v: unknown, min: number, max: number): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max
    ? v
    : typeof v === 'string' && /^\d{1,16}$/.test(v.trim()) && Number(v) >= min && Number(v) <= max
      ? Number(v)
      : null;

export function checkApiKeys(raw: unknown, label: string): { apiKeys: ApiKeyConfig[]; errors: string[] } {
  const apiKeys: ApiKeyConfig[] = [];
  const errors: string[] = [];
  if (!Array.isArray(raw))
    return {
      apiKeys,
      errors: [`${label}: expected a list of { name, key or sha256, max, windowMs }, got ${shown(raw)}`],
    };
  const names = new Set<string>();
  const secrets = new Set<string>();
  raw.forEach((item: unknown, i) => {
    const at = `${label}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push(`${at}: expected a map { name, key or sha256, max, windowMs }, got ${shown(item)}`);
      return;
    }
    const o = item as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!['name', 'key', 'sha256', 'max', 'windowMs'].includes(k))
        errors.push(`${at}.${k}: expected one of name, key, sha256, max, windowMs, got an unknown key`);
    const name = o['name'];
    if (typeof name !== 'string' || !NAME.test(name))
      errors.push(`${at}.name: expected 1 to 64 letters, digits, '_', '.' or '-', got ${shown(name)}`);
    else if (names.has(name)) errors.push(`${at}.name: expected a name not used by another key, got ${shown(name)}`);
    else names.add(name);
    const key = o['key'];
    const sha = o['sha256'];
    if ((key === undefined) === (sha === undefined)) errors.push(`${at}: expected exactly one of key, sha256`);
    if (key !== undefined && (typeof key !== 'string' || !SECRET.test(key)))
      errors.push(
        `${at}.key: expected 16 to 256 printable characters without spaces, got a value that is not (not shown)`,
      );
    if (sha !== undefined && (typeof sha !== 'string' || !SHA256.test(sha)))
      errors.push(`${at}.sha256: expected 64 hex digits, got ${shown(sha)}`);
    const secret = typeof key === 'string' ? key : typeof sha === 'string' ? `sha256:${sha.toLowerCase()}` : '';
    if (secret !== '' && secrets.has(secret))
      errors.push(`${at}: expected a key not used by another entry, got a duplicate (not shown)`);
    secrets.add(secret);
    const max = int(o['max'], 1, 1_000_000_000);
    if (max === null) errors.push(`${at}.max: expected an integer from 1 to 1000000000, got ${shown(o['max'])}`);
    const windowMs = o['windowMs'] === undefined ? undefined : int(o['windowMs'], 1000, MAX_WINDOW_MS);
    if (windowMs === null)
      errors.push(`${at}.windowMs: expected an integer from 1000 to ${MAX_WINDOW_MS}, got ${shown(o['windowMs'])}`);
    if (typeof name === 'string' && max !== null && windowMs !== null) {
      apiKeys.push({
        name,
        ...(typeof key === 'string' ? { key } : {}),
        ...(typeof sha === 'string' ? { sha256: sha.toLowerCase() } : {}),
        max,
        ...(windowMs !== undefined ? { windowMs } : {}),
      });
    }
  });
  return { apiKeys, errors };
}
