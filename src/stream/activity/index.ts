/**
 * GET /stream/activity, composed: the activity channel on the head stream's
 * hub (shared caps, identity, heartbeat, pacing), its history, the feed
 * subscribed to the touched sets, the route and the metrics.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ChainView } from '../../chain/types.js';
import type { StreamConfig } from '../../config/types.js';
import type { TouchedSets } from '../../chain/touched.js';
import { retryFrame } from '../frames.js';
import type { StreamHub } from '../hub.js';
import type { StreamMetrics } from '../metrics.js';
import { NO_ROOM, serveStream } from '../serve.js';
import { ActivityChannel } from './channel.js';
import { ActivityFeed } from './feed.js';
import { ACTIVITY_OPEN_FRAME } from './frames.js';
import { ActivityHistory } from './history.js';
import { createActivityMetrics } from './metrics.js';
import { planActivity } from './resume.js';
import { needsRecord, planFromRecord, type TouchedRecord } from './fleet-resume.js';
import type { ResumePlan } from '../resume.js';
import type { TxReader } from './txs.js';
import { parseWatch } from './watch.js';

export const ACTIVITY_PATH = '/stream/activity';

export interface ActivityDeps {
  app: FastifyInstance;
  config: StreamConfig;
  registry: Registry;
  hub: StreamHub;
  streamMetrics: StreamMetrics;
  touched: TouchedSets;
  chain: ChainView;
  reader: TxReader;
  clock: () => number;
  logger: Logger;
  /** The fleet's record of touched sets (with Redis), read for a resume this replica cannot vouch for; null: none. */
  record: TouchedRecord | null;
}

/** What /status shows. */
interface ActivityStatus {
  streams: number;
  watched: number;
  lingering: number;
  latestHeight: number | null;
  historyBytes: number;
  historyMaxBytes: number;
  watchBytes: number;
  watchMaxBytes: number;
}

export interface ActivityStream {
  /** The touched sets it listens to (Stages.touched). */
  touched: TouchedSets;
  feed: ActivityFeed;
  channel: ActivityChannel;
  status(): ActivityStatus;
  close(): void;
}

export function createActivityStream(d: ActivityDeps): ActivityStream {
  const history = new ActivityHistory(d.config.activityHistoryBytes);
  let channelRef: ActivityChannel | null = null;
  const metrics = createActivityMetrics(d.registry, {
    streams: () => channelRef?.size ?? 0,
    watched: () => channelRef?.counts() ?? { open: 0, lingering: 0 },
    historyBytes: () => history.bytes,
    watchBytes: () => channelRef?.bytes ?? 0,
  });
  // A client may leave lingering as many watches as it may hold open.
  const bounds = {
    maxBytes: d.config.activityWatchBytes,
    lingeringPerClient: d.config.maxPerClient * d.config.activityMaxWatch,
  };
  const channel = new ActivityChannel(history, d.config.activityLingerMs, bounds, d.clock, metrics);
  channelRef = channel;
  const feed = new ActivityFeed({
    channel,
    history,
    chain: d.chain,
    reader: d.reader,
    clock: d.clock,
    logger: d.logger,
    readFailed: metrics.readFailed,
  });
  const unsubscribe = d.touched.subscribe(feed);
  const max = d.config.activityMaxWatch;
  // No HEAD route: a HEAD request must not hold a stream open (it gets the 405 envelope).
  d.app.get(ACTIVITY_PATH, { exposeHeadRoute: false }, (request, reply) =>
    serveStream(request, reply, {
      hub: d.hub,
      retryMs: d.config.retryMs,
      metrics: d.streamMetrics,
      opening: Buffer.concat([retryFrame(d.config.retryMs), ACTIVITY_OPEN_FRAME]),
      onSubscribe: null,
      target: (req, after) => {
        const watch = parseWatch(req.raw.url ?? '', max);
        if (!Array.isArray(watch)) return watch;
        const entities = new Set(watch);
        if (!channel.fits(entities)) return NO_ROOM;
        const c = { history, channel, head: d.chain.bestHead(), final: d.chain.finalHeight(), time: d.clock() };
        const target = (plan: ResumePlan) => ({
          member: channel.member(entities, plan.replay.filter((e) => e.marker !== true).length),
          plan,
        });
        const record = d.record;
        if (record === null || after === null || !needsRecord(after, entities, c))
          return target(planActivity(after, entities, c));
        return planFromRecord(after, entities, c, record, d.reader).then(target);
      },
    }),
  );
  return {
    touched: d.touched,
    feed,
    channel,
    status: () => {
      const c = channel.counts();
      return {
        streams: channel.size,
        watched: c.open,
        lingering: c.lingering,
        latestHeight: history.height < 0 ? null : history.height,
        historyBytes: history.bytes,
        historyMaxBytes: d.config.activityHistoryBytes,
        watchBytes: channel.bytes,
        watchMaxBytes: d.config.activityWatchBytes,
      };
    },
    close: unsubscribe,
  };
}
