/** One /metrics document from every worker's own (src/cluster/merge-metrics.ts). */
import { describe, expect, it } from 'vitest';
import { mergeMetrics } from '../../src/cluster/merge-metrics.js';

const doc = (n: number): string =>
  [
    '# HELP up_total Things.',
    '# TYPE up_total counter',
    `up_total ${n}`,
    '# HELP lat_seconds Latency.',
    '# TYPE lat_seconds histogram',
    `lat_seconds_bucket{le="0.1",endpoint="x"} ${n}`,
    `lat_seconds_bucket{le="+Inf",endpoint="x"} ${n}`,
    `lat_seconds_sum{endpoint="x"} 0.5`,
    `lat_seconds_count{endpoint="x"} ${n}`,
    '',
  ].join('\n');

describe('merged /metrics', () => {
  it("keeps each family's HELP and TYPE once, with every worker's samples under it, labelled", () => {
    expect(
      mergeMetrics([
        { worker: '1', text: doc(1) },
        { worker: '2', text: doc(2) },
      ]),
    ).toBe(
      [
        '# HELP up_total Things.',
        '# TYPE up_total counter',
        'up_total{worker="1"} 1',
        'up_total{worker="2"} 2',
        '# HELP lat_seconds Latency.',
        '# TYPE lat_seconds histogram',
        'lat_seconds_bucket{worker="1",le="0.1",endpoint="x"} 1',
        'lat_seconds_bucket{worker="1",le="+Inf",endpoint="x"} 1',
        'lat_seconds_sum{worker="1",endpoint="x"} 0.5',
        'lat_seconds_count{worker="1",endpoint="x"} 1',
        'lat_seconds_bucket{worker="2",le="0.1",endpoint="x"} 2',
        'lat_seconds_bucket{worker="2",le="+Inf",endpoint="x"} 2',
        'lat_seconds_sum{worker="2",endpoint="x"} 0.5',
        'lat_seconds_count{worker="2",endpoint="x"} 2',
        '',
      ].join('\n'),
    );
  });

  it('adds a family only one worker has (a metric made on first use) after the others', () => {
    const merged = mergeMetrics([
      { worker: '1', text: '# HELP a_total A.\n# TYPE a_total counter\na_total 1\n' },
      {
        worker: '2',
        text: '# HELP a_total A.\n# TYPE a_total counter\na_total 2\n# HELP b B.\n# TYPE b gauge\nb{} 3\n',
      },
    ]);
    expect(merged).toBe(
      '# HELP a_total A.\n# TYPE a_total counter\na_total{worker="1"} 1\na_total{worker="2"} 2\n' +
        '# HELP b B.\n# TYPE b gauge\nb{worker="2"} 3\n',
    );
  });
});
