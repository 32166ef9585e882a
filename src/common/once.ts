/** `run` called at the first call only; every call returns the first call's result. */
export function once<T>(run: () => T): () => T {
  let first: { value: T } | null = null;
  return () => (first ??= { value: run() }).value;
}
