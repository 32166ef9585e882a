import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/pipeline/single-flight.js';

/** A settled-or-not probe: whether `p` has settled once pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise<void>((r) => setImmediate(r));
  return done;
}

function held(): { promise: Promise<string>; finish: () => void } {
  let finish: () => void = () => {};
  const promise = new Promise<string>((r) => (finish = () => r('done')));
  return { promise, finish };
}

describe('SingleFlight.idle', () => {
  it('resolves at once when no flight is under way', async () => {
    expect(await settled(new SingleFlight<string>().idle())).toBe(true);
  });

  it('resolves when the last flight ends, not before', async () => {
    const flights = new SingleFlight<string>();
    const a = held();
    const b = held();
    const ra = flights.run('a', () => a.promise);
    const rb = flights.run('b', () => b.promise);
    const idle = flights.idle();
    a.finish();
    await ra.promise;
    expect(await settled(idle)).toBe(false);
    b.finish();
    await rb.promise;
    expect(await settled(idle)).toBe(true);
    expect(flights.size).toBe(0);
  });

  it('resolves when a flight leaves because every caller went away', async () => {
    const flights = new SingleFlight<string>();
    const caller = new AbortController();
    const work = held();
    const run = flights.run('k', () => work.promise, caller.signal);
    const idle = flights.idle();
    expect(await settled(idle)).toBe(false);
    caller.abort();
    expect(await settled(idle)).toBe(true);
    work.finish();
    await run.promise;
  });
});
