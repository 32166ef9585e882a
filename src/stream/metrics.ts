/** Metrics of the streams, on the proxy's shared registry. */
import type { Registry } from 'prom-client';
import { counter, gauge } from '../metrics/declare.js';
import type { DropReason } from './subscriber.js';

type RefusedReason = 'max_streams' | 'per_client' | 'watch_budget';

export interface StreamMetrics {
  sent(n: number): void;
  dropped(reason: DropReason): void;
  refused(reason: RefusedReason): void;
}

export function createStreamMetrics(registry: Registry, hub: { open(): number; queuedBytes(): number }): StreamMetrics {
  gauge(registry, 'stream_open', (g) => g.set(hub.open()));
  gauge(registry, 'stream_queued_bytes', (g) => g.set(hub.queuedBytes()));
  const events = counter(registry, 'stream_events_sent_total');
  const dropped = counter(registry, 'stream_clients_dropped_total', {
    start: [{ reason: 'slow' }, { reason: 'total' }],
  });
  const refused = counter(registry, 'stream_refused_total', {
    start: (['max_streams', 'per_client', 'watch_budget'] as const).map((reason) => ({ reason })),
  });
  return {
    sent: (n) => events.inc(n),
    dropped: (reason) => dropped.inc({ reason }),
    refused: (reason) => refused.inc({ reason }),
  };
}
