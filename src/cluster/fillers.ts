/**
 * Which worker last filled a flight's key (released its lease with an entry),
 * so a later miss on another worker can borrow that entry instead of asking
 * the upstream. Names only, at most `max` keys, least recently filled dropped
 * first (a Map keeps insertion order).
 */
export class Fillers {
  readonly #max: number;
  readonly #by = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  filled(name: string, worker: number): void {
    this.#by.delete(name);
    this.#by.set(name, worker);
    if (this.#by.size > this.#max) this.#by.delete(this.#by.keys().next().value!);
  }

  of(name: string): number | undefined {
    return this.#by.get(name);
  }

  forget(name: string): void {
    this.#by.delete(name);
  }

  /** A worker is gone (its number may come back as a replacement with an empty memory). */
  leave(worker: number): void {
    for (const [name, w] of this.#by) if (w === worker) this.#by.delete(name);
  }
}
