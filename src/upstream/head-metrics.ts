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
import type { Registry } from 'prom-client';
import { callbackGauge, counter, histogram } from '../metrics/declare.js';
import type { HeadWatch } from './head-watch.js';

/** Registers the metrics; returns the delay observer for HeadWatch's `onDelay`. */
export function registerHeadMetrics(registry: Registry): {
  onDelay: (seconds: number) => void;
  watch: (w: HeadWatch) => void;
} {
  let watched: HeadWatch | null = null;
  const delay = histogram(registry, 'head_detection_delay_seconds');
  counter(registry, 'head_blocks_total', { total: () => watched?.blocks ?? 0 });
  counter(registry, 'head_probes_total', { total: () => watched?.probes ?? 0 });
  callbackGauge(registry, 'head_block_interval_seconds', () => {
    const ms = watched?.status().blockIntervalMs ?? null;
    return ms === null ? [] : [{ labels: {}, value: ms / 1000 }];
  });
  return {
    onDelay: (seconds) => delay.observe(seconds),
    watch: (w) => {
      watched = w;
    },
  };
}
