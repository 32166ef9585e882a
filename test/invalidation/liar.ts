/**
 * An upstream in front of a simulator that relays every request, and can lie
 * the way the block reader must not believe: empty `tx/list?block_height=`
 * pages while its block record counts transactions, a block replaced by
 * another (an orphan: its hash and one transaction differ, until `reorg()`
 * puts the simulator's block back), and held `tx/list?block_height=` answers.
 */
import { request } from 'undici';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

type Rec = Record<string, unknown>;

/** Block `hash` shown as `fake`, and transaction `hide` (of that block) in no answer. */
interface Orphan {
  hash: string;
  fake: string;
  hide: string;
}

export interface Liar extends FakeUpstream {
  /** From now on (until called with false) `tx/list?block_height=` answers are empty, count 0. */
  emptyBlockLists(on: boolean): void;
  /** Serves block `hash` as `fake` without transaction `hide` until `reorg()`. */
  orphan(o: Orphan): void;
  /** The simulator's block again (a reorg from the reader's view). */
  reorg(): void;
  /** Holds `tx/list?block_height=` answers until `release()`; `held()` counts them. */
  hold(): void;
  release(): void;
  held(): number;
}

const isBlockList = (url: string): boolean => url.startsWith('/tx/list?') && url.includes('block_height=');

function pageSize(url: string): number {
  const v = Number(new URL(url, 'http://x').searchParams.get('page_size') ?? '20');
  return Math.min(100, Number.isSafeInteger(v) && v > 0 ? v : 20);
}

/** The answer with the orphan's hash and without its hidden transaction. */
function orphaned(url: string, status: number, text: string, o: Orphan): { status: number; body: string } {
  if (url.startsWith('/tx/detail') && url.includes(o.hide))
    return { status: 404, body: '{"code":404,"msg":"not found","data":null}' };
  if (!text.includes(o.hide) && !text.includes(o.hash)) return { status, body: text };
  const env = JSON.parse(text.split(o.hash).join(o.fake)) as { data?: Rec };
  const d = env.data;
  if (d !== undefined && d !== null && Array.isArray(d['list'])) {
    const list = d['list'] as Rec[];
    const kept = list.filter((t) => t['tx_hash'] !== o.hide);
    if (kept.length !== list.length && typeof d['count'] === 'number') {
      d['count'] = d['count'] - 1;
      d['total_page'] = Math.ceil((d['count'] as number) / pageSize(url));
    }
    d['list'] = kept;
  }
  if (d !== undefined && d !== null && d['block_hash'] === o.fake && typeof d['tx_count'] === 'number')
    d['tx_count'] = d['tx_count'] - 1;
  return { status, body: JSON.stringify(env) };
}

export async function startLiar(simUrl: string): Promise<Liar> {
  const state = {
    empty: false,
    orphan: null as Orphan | null,
    held: null as Promise<void> | null,
    release: (): void => {},
    waiting: 0,
  };
  const fake = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    if (isBlockList(url) && state.held !== null) {
      state.waiting++;
      await state.held;
      state.waiting--;
    }
    if (isBlockList(url) && state.empty) {
      return sendJson(
        res,
        200,
        '{"code":0,"msg":"success","data":{"next":null,"previous":null,"count":0,"total_page":0,"current_page":1,' +
          `"list":[],"server_timestamp":${Date.now()}}}`,
      );
    }
    const up = await request(`${simUrl}${url}`);
    const body = Buffer.from(await up.body.arrayBuffer());
    if (state.orphan === null || url.startsWith('/_sim/')) return sendJson(res, up.statusCode, body);
    const out = orphaned(url, up.statusCode, body.toString('utf8'), state.orphan);
    sendJson(res, out.status, out.body);
  });
  return Object.assign(fake, {
    emptyBlockLists(on: boolean) {
      state.empty = on;
    },
    orphan(o: Orphan) {
      state.orphan = o;
    },
    reorg() {
      state.orphan = null;
    },
    hold() {
      state.held ??= new Promise<void>((resolve) => (state.release = resolve));
    },
    release() {
      state.release();
      state.held = null;
    },
    held: () => state.waiting,
  });
}
