/**
 * Refresh-ahead: when the best head advances, the hot head-dependent entries
 * (see hot-keys.ts) are fetched once, before clients ask, so the clients that
 * poll right after a block hit the new data instead of missing together.
 * Extra targets (an aggregate page's recompose) register with `addTarget`.
 * In a fleet only the leader refreshes: the others find the refreshed
 * entries in the Redis tier (and compose their pages from them on request).
 */
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import { toProxyError } from '../errors/catalog.js';
import type { HotKeys } from './hot-keys.js';

/** Something to rebuild on every new head, besides the hot cache entries. */
export interface RefreshTarget {
  readonly name: string;
  refresh(head: number): Promise<unknown>;
}

export interface RefreshAheadDeps {
  /** Fetches the key again (joining a flight under way) and stores it. */
  revalidate(req: CanonicalRequest): Promise<unknown>;
  /** The key's entry is fresh and fetched at the new head already (the head entry a probe answer became): not fetched again. */
  current(req: CanonicalRequest): boolean;
  hot: HotKeys;
  /** This replica refreshes now (the fleet's leader, or alone); null: no fleet. */
  acting: (() => boolean) | null;
  /** Hot entries refreshed per head (0: none). */
  maxKeys: number;
  refreshed(outcome: 'ok' | 'error', n: number): void;
  logger: Logger;
}

export class RefreshAhead {
  readonly #d: RefreshAheadDeps;
  readonly #targets: RefreshTarget[] = [];

  constructor(deps: RefreshAheadDeps) {
    this.#d = deps;
  }

  addTarget(target: RefreshTarget): void {
    this.#targets.push(target);
  }

  /** Refreshes the hot entries, then the extra targets (which may compose those entries); never rejects. */
  async run(head: number): Promise<void> {
    if (this.#d.acting?.() === false) return;
    const keys = this.#d.maxKeys > 0 ? this.#d.hot.take(this.#d.maxKeys).filter((req) => !this.#d.current(req)) : [];
    await Promise.all(keys.map((req) => this.#guard(req.key, () => this.#d.revalidate(req))));
    await Promise.all(this.#targets.map((t) => this.#guard(t.name, () => t.refresh(head))));
  }

  async #guard(name: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
      this.#d.refreshed('ok', 1);
    } catch (err) {
      this.#d.refreshed('error', 1);
      this.#d.logger.warn({ key: name, err: toProxyError(err).message }, 'refresh-ahead failed');
    }
  }
}
