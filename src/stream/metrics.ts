/** Metrics of the streams, on the proxy's shared registry. */
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/prometheus.js';
import type { DropReason } from './subscriber.js';

type RefusedReason = 'max_streams' | 'per_client' | 'watch_budget';

export interface StreamMetrics {
  sent(n: number): void;
  dropped(reason: DropReason): void;
  refused(reason: RefusedReason): void;
}

export function createStreamMetrics(registry: Registry, hub: { open(): number; queuedBytes(): number }): StreamMetrics {
  const p = METRIC_PREFIX;
  new Gauge({
    name: `${p}stream_open`,
    help: 'Open stream subscriber connections (/stream/heads and /stream/activity).',
    registers: [registry],
    collect() {
      this.set(hub.open());
    },
  });
  new Gauge({
    name: `${p}stream_queued_bytes`,
    help: 'Bytes queued for slow stream subscribers, all together (STREAM_MAX_BUFFER_TOTAL_BYTES bounds it).',
    registers: [registry],
    collect() {
      this.set(hub.queuedBytes());
    },
  });
  const events = new Counter({
    name: `${p}stream_events_sent_total`,
    help: 'Events written to stream subscribers (one per subscriber per event, replays included; /stream/heads and /stream/activity).',
    registers: [registry],
  });
  const dropped = new Counter({
    name: `${p}stream_clients_dropped_total`,
    help: 'Stream subscribers disconnected by the proxy because they read too slowly (/stream/heads and /stream/activity): past their own STREAM_MAX_BUFFER_BYTES (slow), or when what all of them queue reached STREAM_MAX_BUFFER_TOTAL_BYTES (total).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['slow', 'total']) dropped.inc({ reason }, 0);
  const refused = new Counter({
    name: `${p}stream_refused_total`,
    help: 'Stream requests refused by a cap: MAX_STREAMS (max_streams), STREAM_MAX_PER_CLIENT (per_client), STREAM_ACTIVITY_WATCH_BYTES (watch_budget).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['max_streams', 'per_client', 'watch_budget']) refused.inc({ reason }, 0);
  return {
    sent: (n) => events.inc(n),
    dropped: (reason) => dropped.inc({ reason }),
    refused: (reason) => refused.inc({ reason }),
  };
}
