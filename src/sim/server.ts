/**
 * Chain simulator: a deterministic, living stand-in for the Chain Data Query Service.
 *
 * Behaviour (details in src/sim/README.md):
 *  - All 22 GET endpoints at the root (`/tx/list`, ...), same envelopes, field names, quirks.
 *  - Deterministic: same seed and same head ⇒ same bytes, except server_timestamp,
 *    currentTimestamp and timeDiff (from `now()`).
 *  - Chain time: block h has timestamp genesis + 15 h. By default the start head is timed at
 *    the clock at start (`startTime`); `startTime: 'fixture'` keeps the recorded alignment
 *    (genesis 1522526895: height 4 842 000 lands on 2020-07-19). The chain clock advances
 *    15 s per produced block whatever blockIntervalMs is.
 *  - Finality: blocks with height > head − finalityDepth have is_finality false.
 *  - Pending: txs of blocks head+1..head+40 that have entered the pool (each tx has an entry
 *    height in [h−40, h−1]) are pending (status 2, null block fields) and confirm (1) or fail (0)
 *    when their block is produced.
 *  - Errors: HTTP 400 `{"code":400,"msg":"invalid parameter: <name>","data":null}` (or
 *    "missing parameter: <name>") for malformed/missing parameters; HTTP 404
 *    `{"code":404,"msg":"not found","data":null}` for unknown hash/block/token and unknown paths.
 *    page_size above 100 is clamped to 100; a page beyond the last gives an empty list with
 *    the true count; `next` is null on the last page; `previous` null on page 1.
 *  - Control plane under /_sim/ (stats, faults, advance), never faulted or counted.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { SimChain } from './chain.js';
import { genesisFor, type StartTime } from './time.js';
import { registerControl } from './control.js';
import { Faults, type FaultConfig } from './faults.js';
import { registerRoutes } from './routes.js';

export type { FaultConfig, FaultKind } from './faults.js';
export type { StartTime } from './time.js';
export { SimChain } from './chain.js';

export interface SimulatorOptions {
  /** default 0 (free port) */
  port?: number;
  /** default '127.0.0.1' */
  host?: string;
  /** default 1 */
  seed?: number;
  /** default 15000; 0 disables the timer (tests advance manually) */
  blockIntervalMs?: number;
  /** default 4_842_000 */
  startHeight?: number;
  /** default 15 */
  finalityDepth?: number;
  /** base URL used to build next/previous links; default: the simulator's own URL */
  advertisedUrl?: string;
  /** clock in ms for server_timestamp etc.; default Date.now */
  now?: () => number;
  /**
   * Unix ms the start head's block is timed at (same seed + same startTime ⇒ same chain);
   * 'fixture': the recorded fixtures' alignment. Default: now() at start.
   */
  startTime?: StartTime;
  /** calls pay internal transfers no tx names (src/sim/README.md "Ledger"); default false */
  internalTransfers?: boolean;
  logger?: boolean;
}

export interface SimulatorHandle {
  /** e.g. http://127.0.0.1:34567 (no trailing slash) */
  url: string;
  chain: SimChain;
  /** request counts per endpoint path (plus _total, _faults, _notFound) */
  stats(): Record<string, number>;
  /** same as POST /_sim/faults */
  setFaults(f: FaultConfig): void;
  close(): Promise<void>;
}

export const DEFAULT_START_HEIGHT = 4_842_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const now = options.now ?? Date.now;
  const startHeight = options.startHeight ?? DEFAULT_START_HEIGHT;
  const chain = new SimChain({
    seed: options.seed ?? 1,
    startHeight,
    finalityDepth: options.finalityDepth ?? 15,
    blockIntervalMs: options.blockIntervalMs ?? 15_000,
    genesisTime: genesisFor(options.startTime ?? now(), startHeight),
    internalTransfers: options.internalTransfers ?? false,
  });
  const faults = new Faults();
  let counts: Record<string, number> = {};
  const count = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
    if (k[0] !== '_') counts._total = (counts._total ?? 0) + 1;
  };
  const setFaults = (f: FaultConfig): void => {
    faults.set(f);
    chain.freeze(f.freeze === true);
  };
  const app: FastifyInstance = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });
  let baseUrl = '';
  registerRoutes(app, { chain, faults, now, baseUrl: () => baseUrl, count });
  registerControl(app, {
    chain,
    faults,
    setFaults,
    stats: () => ({ ...counts }),
    resetStats: () => {
      counts = {};
    },
  });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (options.port ?? 0);
  const url = 'http://' + (host.includes(':') ? '[' + host + ']' : host) + ':' + port;
  baseUrl = (options.advertisedUrl ?? url).replace(/\/+$/, '');
  chain.start();
  let closed: Promise<void> | undefined;
  return {
    url,
    chain,
    stats: () => ({ ...counts }),
    setFaults,
    close: () => {
      closed ??= (async () => {
        chain.stop();
        faults.releaseHung();
        await app.close();
      })();
      return closed;
    },
  };
}
