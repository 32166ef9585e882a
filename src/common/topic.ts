/**
 * A typed event with any number of listeners, called in the order they
 * subscribed. What a stage announces before its listeners exist (a probe's
 * new head before the head entry is built): the stage gets `emit`, each
 * listener subscribes once it is built. Emitting with no listener does nothing.
 */
export class Topic<A extends unknown[]> {
  readonly #listeners: Array<(...args: A) => void> = [];

  /** Calls `listener` on every later `emit`. */
  on(listener: (...args: A) => void): void {
    this.#listeners.push(listener);
  }

  readonly emit = (...args: A): void => {
    for (const l of this.#listeners) l(...args);
  };
}
