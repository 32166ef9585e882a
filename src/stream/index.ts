/**
 * The streams, composed: the hub (shared by every stream type), the head
 * channel (its history), the route and the head feed (which waits for the
 * refresh engine's round of each head); the activity stream (src/stream/activity/)
 * on the same hub. `createHeadStream` is called once by the composition root;
 * `close()` ends every stream so the server's close does not wait on them.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { ChainTracker } from '../chain/tracker.js';
import type { CacheEntry } from '../cache/types.js';
import type { StreamConfig } from '../config/types.js';
import type { RefreshEngine } from '../refresh/engine.js';
import { createActivityStream, type ActivityStream } from './activity/index.js';
import type { TouchedSets } from '../chain/touched.js';
import { HeadFeed } from './feed.js';
import { HEARTBEAT_FRAME } from './frames.js';
import { StreamChannel } from './channel.js';
import { StreamHub } from './hub.js';
import { createStreamMetrics, type StreamMetrics } from './metrics.js';
import { registerStreamRoute } from './route.js';
import type { SharedHeadHistory } from './shared-history.js';
import type { TouchedRecord } from './activity/fleet-resume.js';

export { STREAM_PATH } from './route.js';

export interface HeadStreamDeps {
  app: FastifyInstance;
  config: StreamConfig;
  registry: Registry;
  tracker: ChainTracker;
  /** Each head's event is sent once the engine's round for it is done (src/refresh/engine.ts). */
  refresh: Pick<RefreshEngine, 'head' | 'rebase'>;
  blockList: EndpointDef;
  /** tx/list, read for the transactions of blocks that name a watched entity. */
  txList: EndpointDef;
  /** What each block changed (Stages.touched): the activity stream's source. */
  touched: TouchedSets;
  limits: ParamLimits;
  resolver: {
    resolve(req: CanonicalRequest): Promise<{ entry: CacheEntry }>;
    revalidate(req: CanonicalRequest): Promise<CacheEntry>;
  };
  clock: () => number;
  logger: Logger;
  /** The head history the fleet shares (with Redis); null: this replica's own alone. */
  shared: SharedHeadHistory | null;
  /** The fleet's record of touched sets (with Redis), for activity resumes; null: none. */
  record: TouchedRecord | null;
}

export interface HeadStream {
  feed: HeadFeed;
  hub: StreamHub;
  metrics: StreamMetrics;
  /** GET /stream/activity on the same hub. */
  activity: ActivityStream;
  close(): void;
}

export function createHeadStream(d: HeadStreamDeps): HeadStream {
  let hubRef: StreamHub | null = null;
  const metrics = createStreamMetrics(d.registry, {
    open: () => hubRef?.size ?? 0,
    queuedBytes: () => hubRef?.queuedBytes ?? 0,
  });
  const streamHub = new StreamHub(d.config, metrics, HEARTBEAT_FRAME);
  hubRef = streamHub;
  const heads = new StreamChannel(d.config.history, metrics);
  const feed = new HeadFeed({
    tracker: d.tracker,
    refresh: d.refresh,
    blockList: d.blockList,
    limits: d.limits,
    resolve: (req) => d.resolver.resolve(req),
    revalidate: (req) => d.resolver.revalidate(req),
    publish: (e) => {
      heads.publish(e);
      d.shared?.append(e);
    },
    rebase: (height, from, frame) => {
      heads.rebase(height, from, frame);
      d.shared?.rebase(height, from);
      return heads.history.latest();
    },
    clock: d.clock,
    logger: d.logger,
  });
  // A block read again with another hash (a reorg) makes its events again.
  const untouched = d.touched.subscribe({ block: (set) => set.complete && feed.rewritten(set.height, set.blockHash) });
  registerStreamRoute(d.app, {
    hub: streamHub,
    channel: heads,
    chain: d.tracker,
    retryMs: d.config.retryMs,
    metrics,
    clock: d.clock,
    shared: d.shared,
    onSubscribe: () => feed.startStreaming(),
  });
  const activity = createActivityStream({
    app: d.app,
    config: d.config,
    registry: d.registry,
    hub: streamHub,
    streamMetrics: metrics,
    touched: d.touched,
    chain: d.tracker,
    reader: { txList: d.txList, limits: d.limits, resolve: (req) => d.resolver.resolve(req) },
    clock: d.clock,
    logger: d.logger,
    record: d.record,
  });
  const close = (): void => {
    untouched();
    feed.close();
    activity.close();
    streamHub.close();
  };
  // Open streams would hold the server's close: end them first.
  d.app.addHook('preClose', (done) => {
    close();
    done();
  });
  return {
    feed,
    hub: streamHub,
    metrics,
    activity,
    close,
  };
}
