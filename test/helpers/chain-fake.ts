/**
 * Chain fakes of the head, upstream and quorum tests: a fixture-serving
 * upstream whose block/max head and per-path answers the test changes at
 * will, and small readers of the proxy's answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadFixtures, sendJson, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import type { Replica } from './replica.js';
import { closeAfterEach } from './teardown.js';

const FIXTURES = loadFixtures();

/**
 * A delay() that makes an upstream the one asked later: far above what a
 * loaded machine adds to any answer, so the latency ranking is the test's.
 */
export const SLOWER_MS = 300;

/** The recorded body of an endpoint (no leading slash). */
export function fixture(path: string): string {
  const f = FIXTURES.find((x) => x.path === path);
  if (f === undefined) throw new Error(`no fixture for ${path}`);
  return f.body;
}

export interface ChainFake extends FakeUpstream {
  head: { value: number };
  /** Answers requests for `path` (no query) with `fn` until replaced; null removes it. */
  on(path: string, fn: ((req: IncomingMessage, res: ServerResponse) => void) | null): void;
  /** Every answer (probes included) is sent `ms` later: a slower upstream, by latency EWMA. */
  delay(ms: number): void;
}

/** Fixtures for every path, block/max at `head` (written `N.0` like the real service), overridable per path. */
export async function startChainFake(head: number): Promise<ChainFake> {
  const state = { value: head };
  const overrides = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  let delayMs = 0;
  const byPath = new Map(FIXTURES.map((f) => [`/${f.path}`, f.body]));
  const fake = await startFakeUpstream(async (req, res) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const o = overrides.get(path);
    if (o !== undefined) return o(req, res);
    if (path === '/block/max')
      return sendJson(
        res,
        200,
        `{"code":0,"msg":"success","data":{"height":${state.value}.0,"server_timestamp":${Date.now()}}}`,
      );
    const body = byPath.get(path);
    if (body === undefined) sendJson(res, 404, '{"code":404,"msg":"not found","data":null}');
    else sendJson(res, 200, body);
  });
  return Object.assign(fake, {
    head: state,
    delay(ms: number) {
      delayMs = ms;
    },
    on(path: string, fn: ((req: IncomingMessage, res: ServerResponse) => void) | null) {
      if (fn === null) overrides.delete(`/${path}`);
      else overrides.set(`/${path}`, fn);
    },
  });
}

/** A block/detail body at `height` with `is_finality`, from the recorded one. */
export function blockDetailAt(height: number, final: boolean): string {
  return fixture('block/detail')
    .replace(/"height":\d+/, `"height":${height}`)
    .replace(/"is_finality":(true|false)/, `"is_finality":${final}`);
}

/** The fakes and the proxy of one test, closed after it (call once at the top of a file). */
export function perTest(): { fakes: ChainFake[]; proxy: Replica | undefined } {
  const scope = closeAfterEach<ChainFake, Replica>();
  return {
    fakes: scope.upstreams,
    get proxy() {
      return scope.front;
    },
    set proxy(replica) {
      scope.front = replica;
    },
  };
}
