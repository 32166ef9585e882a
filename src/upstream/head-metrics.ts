/**
 * Head detection metrics on the shared registry (definitions in head-watch.ts):
 *
 *   chainproxy_head_detection_delay_seconds   histogram, one sample per new head
 *   chainproxy_head_blocks_total              heights the head moved forward by
 *   chainproxy_head_probes_total              probe answers (and failures), every upstream
 *   chainproxy_head_block_interval_seconds    median of the recent per-block intervals
 *
 * probes_total / blocks_total / upstreams is the upstream cost per block.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { CallbackGauge } from '../metrics/collectors.js';
import { METRIC_PREFIX } from '../metrics/prometheus.js';
import type { HeadWatch } from './head-watch.js';

const DETECTION_BUCKETS = [0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];

/** Registers the metrics; returns the delay observer for HeadWatch's `onDelay`. */
export function registerHeadMetrics(registry: Registry): {
  onDelay: (seconds: number) => void;
  watch: (w: HeadWatch) => void;
} {
  const p = METRIC_PREFIX;
  let watched: HeadWatch | null = null;
  const delay = new Histogram({
    name: `${p}head_detection_delay_seconds`,
    help:
      'Per new head: time from the end of the last probe answer still in sync (reporting the best head, nothing ' +
      'newer) to the moment the proxy believed the new head; an upper bound of how long the upstreams had it first.',
    buckets: DETECTION_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: `${p}head_blocks_total`,
    help: 'Blocks the trusted chain head moved forward by.',
    registers: [registry],
    collect() {
      this.reset();
      if (watched !== null) this.inc(watched.blocks);
    },
  });
  new Counter({
    name: `${p}head_probes_total`,
    help: 'Head probes answered or failed, all upstreams together.',
    registers: [registry],
    collect() {
      this.reset();
      if (watched !== null) this.inc(watched.probes);
    },
  });
  new CallbackGauge(
    `${p}head_block_interval_seconds`,
    'Median of the recent per-block intervals the probe cadence follows.',
    () => {
      const ms = watched?.status().blockIntervalMs ?? null;
      return ms === null ? [] : [{ labels: {}, value: ms / 1000 }];
    },
  ).register(registry);
  return {
    onDelay: (seconds) => delay.observe(seconds),
    watch: (w) => {
      watched = w;
    },
  };
}
