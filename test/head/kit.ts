/**
 * Rigs of the head tests: a recording upstream (a real fake upstream on its
 * own socket) forwarding to a chain simulator, whose log keeps each request's
 * path and `x-chainproxy-purpose` header, and which can hold chosen answers.
 */
import { afterAll, beforeAll } from 'vitest';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy, type ConfigPatch } from '../helpers/proxy.js';
import { PURPOSE_HEADER } from '../../src/upstream/types.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import { untilHead } from '../helpers/until.js';

export interface Recorder {
  up: FakeUpstream;
  /** Requests so far: path with query, purpose header (null: none), arrival (performance.now). */
  log: Array<{ url: string; purpose: string | null; at: number }>;
  /**
   * Holds the answer of the next request whose URL `match`es until `release`
   * (the upstream is asked at once); `reached` resolves once that answer is in
   * and held.
   */
  hold(match: (url: string) => boolean): { release: () => void; reached: Promise<void> };
  /** Delays every answer of requests whose URL `match`es by `ms`. */
  delay(match: (url: string) => boolean, ms: number): void;
}

async function recordingUpstream(target: string): Promise<Recorder> {
  const log: Recorder['log'] = [];
  const holds: Array<{ match: (url: string) => boolean; held: Promise<void>; reach: () => void }> = [];
  const delays: Array<{ match: (url: string) => boolean; ms: number }> = [];
  const up = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    const p = req.headers[PURPOSE_HEADER];
    log.push({ url, purpose: typeof p === 'string' ? p : null, at: performance.now() });
    const answer = await fetch(`${target}${url}`);
    const body = Buffer.from(await answer.arrayBuffer());
    const i = holds.findIndex((h) => h.match(url));
    if (i >= 0) {
      const [h] = holds.splice(i, 1);
      h?.reach();
      await h?.held;
    }
    const d = delays.find((x) => x.match(url));
    if (d !== undefined) await new Promise((r) => setTimeout(r, d.ms));
    sendJson(res, answer.status, body);
  });
  return {
    up,
    log,
    hold(match) {
      let release: () => void = () => {};
      let reach: () => void = () => {};
      const held = new Promise<void>((r) => (release = r));
      const reached = new Promise<void>((r) => (reach = r));
      holds.push({ match, held, reach });
      return { release, reached };
    },
    delay(match, ms) {
      delays.push({ match, ms });
    },
  };
}

/** Path without query. */
export const pathOf = (url: string): string => url.split('?')[0] ?? url;

export interface HeadRig {
  sim: SimulatorHandle;
  rec: Recorder;
  proxy: ProxyHandle;
}

/**
 * Registers the suite's setup and teardown: a simulator that makes blocks only
 * when told, the recording upstream in front of it, and a proxy on that which
 * has learned the first head. The handles are filled in by `beforeAll`.
 */
export function headRig(patch: ConfigPatch, clock?: () => number): HeadRig {
  const rig = {} as HeadRig;
  beforeAll(async () => {
    rig.sim = await startSimulator({ blockIntervalMs: 0 });
    rig.rec = await recordingUpstream(rig.sim.url);
    rig.proxy = await startTestProxy([rig.rec.up.url], patch, clock);
    await untilHead(rig.proxy.tracker, (h) => h === rig.sim.chain.head(), 'the first head', 5000);
  });
  afterAll(async () => {
    await rig.proxy.close();
    await rig.rec.up.close();
    await rig.sim.close();
  });
  return rig;
}
