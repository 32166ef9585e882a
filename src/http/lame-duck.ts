/**
 * The lame duck before a drain: readiness already says not ready and every
 * request is still served, for a while (`wait`) or until told to hurry (a
 * second signal). A hurry with no wait in progress does nothing.
 */
export class LameDuck {
  readonly #waits = new Set<() => void>();

  /** Resolves after `ms`, or at the next `hurry()`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = (): void => {
        clearTimeout(timer);
        this.#waits.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.#waits.add(end);
    });
  }

  /** Ends every wait in progress now. */
  hurry(): void {
    for (const end of [...this.#waits]) end();
  }
}
