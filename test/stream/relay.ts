/**
 * An upstream in front of the simulator that relays every request, except
 * that its block/max can lie (a bogus head) and its block/list answers can be
 * held (a slow page while the head moves).
 */
import { request } from 'undici';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

export interface Relay extends FakeUpstream {
  /** From now on block/max reports `height` instead of the simulator's head; null: the truth. */
  lie(height: number | null): void;
  /** Holds block/list answers until `release()`. */
  hold(): void;
  release(): void;
}

export async function startRelay(simUrl: string): Promise<Relay> {
  let held: Promise<void> | null = null;
  let releaseHeld = (): void => {};
  const state = { lie: null as number | null };
  const fake = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    if (path === '/block/max' && state.lie !== null) {
      return sendJson(
        res,
        200,
        `{"code":0,"msg":"success","data":{"height":${state.lie},"server_timestamp":${Date.now()}}}`,
      );
    }
    if (path === '/block/list' && held !== null) await held;
    const up = await request(`${simUrl}${url}`);
    sendJson(res, up.statusCode, Buffer.from(await up.body.arrayBuffer()));
  });
  return Object.assign(fake, {
    lie(height: number | null) {
      state.lie = height;
    },
    hold() {
      held ??= new Promise<void>((resolve) => (releaseHeld = resolve));
    },
    release() {
      releaseHeld();
      held = null;
    },
  });
}
