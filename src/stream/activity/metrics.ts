/** Metrics of the activity stream, on the proxy's shared registry. */
import type { Registry } from 'prom-client';
import { counter, gauge } from '../../metrics/declare.js';

export interface ActivityMetrics {
  delivered(n: number): void;
  dropped(): void;
  readFailed(): void;
  forgotten(reason: 'client' | 'budget'): void;
}

export interface ActivityGauges {
  streams(): number;
  watched(): { open: number; lingering: number };
  historyBytes(): number;
  watchBytes(): number;
}

export function createActivityMetrics(registry: Registry, g: ActivityGauges): ActivityMetrics {
  gauge(registry, 'activity_streams', (m) => m.set(g.streams()));
  gauge(registry, 'activity_watched_entities', (m) => {
    const c = g.watched();
    m.set({ state: 'open' }, c.open);
    m.set({ state: 'lingering' }, c.lingering);
  });
  gauge(registry, 'activity_history_bytes', (m) => m.set(g.historyBytes()));
  gauge(registry, 'activity_watch_bytes', (m) => m.set(g.watchBytes()));
  const forgotten = counter(registry, 'activity_lingering_forgotten_total', {
    start: [{ reason: 'client' }, { reason: 'budget' }],
  });
  const delivered = counter(registry, 'activity_events_delivered_total');
  const dropped = counter(registry, 'activity_dropped_total');
  const failed = counter(registry, 'activity_tx_reads_failed_total');
  return {
    delivered: (n) => delivered.inc(n),
    dropped: () => dropped.inc(),
    readFailed: () => failed.inc(),
    forgotten: (reason) => forgotten.inc({ reason }),
  };
}
