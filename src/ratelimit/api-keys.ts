/**
 * API keys from CONFIG_FILE (`apiKeys:`): each a name and its own budget. A
 * request's `X-API-Key` is looked up in clear (a Map of the configured
 * secrets) or, for keys configured by their SHA-256 only, by digest. The
 * secret is never logged or exported: only the name is (logs, metrics, Redis
 * counter keys).
 */
import { createHash } from 'node:crypto';
import type { ApiKeyConfig } from '../config/types.js';

export interface ApiKey {
  name: string;
  /** Rate-limit identity: `key:<name>` (never an IP string). */
  clientKey: string;
  max: number;
  windowMs: number;
}

export const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');

export class ApiKeyTable {
  readonly #byKey = new Map<string, ApiKey>();
  readonly #byDigest = new Map<string, ApiKey>();
  readonly #byClientKey = new Map<string, ApiKey>();

  constructor(keys: readonly ApiKeyConfig[], defaultWindowMs: number) {
    for (const k of keys) {
      const key: ApiKey = {
        name: k.name,
        clientKey: `key:${k.name}`,
        max: k.max,
        windowMs: k.windowMs ?? defaultWindowMs,
      };
      if (k.key !== undefined) this.#byKey.set(k.key, key);
      if (k.sha256 !== undefined) this.#byDigest.set(k.sha256.toLowerCase(), key);
      this.#byClientKey.set(key.clientKey, key);
    }
  }

  get size(): number {
    return this.#byClientKey.size;
  }

  names(): string[] {
    return [...this.#byClientKey.values()].map((k) => k.name);
  }

  /** The key a header value names, or undefined. */
  find(secret: string): ApiKey | undefined {
    return this.#byKey.get(secret) ?? (this.#byDigest.size > 0 ? this.#byDigest.get(sha256Hex(secret)) : undefined);
  }

  byClientKey(clientKey: string): ApiKey | undefined {
    return this.#byClientKey.get(clientKey);
  }
}
