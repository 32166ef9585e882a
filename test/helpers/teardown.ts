/**
 * The one teardown of the tests. Call `closeAfterEach()` at the top of a file
 * (or of a describe): the upstreams a test starts go in `upstreams`, the one
 * thing in front of them (an upstream pool, a proxy) in `front`. After each
 * test the front is closed first, so nothing is left talking to a closed
 * upstream, then every upstream; the scope is empty again for the next test.
 */
import { afterEach } from 'vitest';

interface Closeable {
  close(): unknown;
}

export interface TestScope<U extends Closeable, F extends Closeable> {
  upstreams: U[];
  front: F | undefined;
}

export function closeAfterEach<U extends Closeable, F extends Closeable>(): TestScope<U, F> {
  const scope: TestScope<U, F> = { upstreams: [], front: undefined };
  afterEach(async () => {
    const front = scope.front;
    scope.front = undefined;
    try {
      await front?.close();
    } finally {
      await Promise.all(scope.upstreams.splice(0).map((u) => u.close()));
    }
  });
  return scope;
}
