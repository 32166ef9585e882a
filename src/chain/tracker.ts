import { EventEmitter } from 'node:events';
import type { ChainView } from './types.js';

/**
 * Tracks the best chain head and the highest final height, monotonically.
 * Sources: upstream probes (issue 4), block/max answers, blocks' `is_finality`
 * seen in data, and peers over the Redis bus (issue 5). Emits `head` and
 * `final` only when the value moves forward.
 */
export class ChainTracker extends EventEmitter implements ChainView {
  #head: number | null = null;
  #final: number | null = null;

  bestHead(): number | null {
    return this.#head;
  }

  finalHeight(): number | null {
    return this.#final;
  }

  /** Returns true when the head moved forward. */
  observeHead(height: number): boolean {
    if (!Number.isSafeInteger(height) || height < 0) return false;
    if (this.#head !== null && height <= this.#head) return false;
    this.#head = height;
    this.emit('head', height);
    return true;
  }

  /** Returns true when the final height moved forward. */
  observeFinal(height: number): boolean {
    if (!Number.isSafeInteger(height) || height < 0) return false;
    if (this.#final !== null && height <= this.#final) return false;
    this.#final = height;
    this.emit('final', height);
    return true;
  }
}
