/** Metrics of the activity stream, on the proxy's shared registry. */
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../metrics/prometheus.js';

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
  const p = METRIC_PREFIX;
  new Gauge({
    name: `${p}activity_streams`,
    help: 'Open /stream/activity connections.',
    registers: [registry],
    collect() {
      this.set(g.streams());
    },
  });
  new Gauge({
    name: `${p}activity_watched_entities`,
    help:
      'Distinct addresses and contracts watched: by an open ' +
      'connection (open), or after their last one closed (lingering).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const c = g.watched();
      this.set({ state: 'open' }, c.open);
      this.set({ state: 'lingering' }, c.lingering);
    },
  });
  new Gauge({
    name: `${p}activity_history_bytes`,
    help: 'Memory charged to the /stream/activity resume history (STREAM_ACTIVITY_HISTORY_BYTES bounds it).',
    registers: [registry],
    collect() {
      this.set(g.historyBytes());
    },
  });
  new Gauge({
    name: `${p}activity_watch_bytes`,
    help: 'Memory charged to the /stream/activity watches, open and lingering (STREAM_ACTIVITY_WATCH_BYTES bounds it).',
    registers: [registry],
    collect() {
      this.set(g.watchBytes());
    },
  });
  const forgotten = new Counter({
    name: `${p}activity_lingering_forgotten_total`,
    help:
      'Lingering watches forgotten before STREAM_ACTIVITY_LINGER_MS: their client left more than its ' +
      'share (client), or a new stream needed the room in STREAM_ACTIVITY_WATCH_BYTES (budget).',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of ['client', 'budget']) forgotten.inc({ reason }, 0);
  const delivered = new Counter({
    name: `${p}activity_events_delivered_total`,
    help: 'Block events handed to /stream/activity subscribers (one per subscriber per block, replays included).',
    registers: [registry],
  });
  const dropped = new Counter({
    name: `${p}activity_dropped_total`,
    help: '/stream/activity subscribers disconnected because they read too slowly.',
    registers: [registry],
  });
  const failed = new Counter({
    name: `${p}activity_tx_reads_failed_total`,
    help: 'Blocks naming a watched entity whose transactions could not be read (event sent with complete: false).',
    registers: [registry],
  });
  return {
    delivered: (n) => delivered.inc(n),
    dropped: () => dropped.inc(),
    readFailed: () => failed.inc(),
    forgotten: (reason) => forgotten.inc({ reason }),
  };
}
