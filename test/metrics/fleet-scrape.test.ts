/**
 * The fleet recipe: config/prometheus/fleet-static.yml and fleet-file-sd.yml
 * pass `promtool check config` (their rule files and, for file-based
 * discovery, the example targets file included); a real Prometheus run with
 * fleet-file-sd.yml as shipped (only the targets file written to name two
 * real replicas) scrapes both, and the dashboard's per-replica panels show
 * one series per replica.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ProxyHandle } from '../../src/app.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import {
  describePrometheus,
  describePromtool,
  runPromtool,
  startPrometheus,
  type PrometheusServer,
} from '../helpers/prometheus.js';
import { startTestProxy } from '../helpers/proxy.js';
import { dashboardQueries, withVariables } from './dashboard.js';

const configPath = (rel: string) => fileURLToPath(new URL(`../../config/prometheus/${rel}`, import.meta.url));
const read = (rel: string) => readFileSync(configPath(rel), 'utf8');

describePromtool()('fleet Prometheus examples', () => {
  it.each(['fleet-static.yml', 'fleet-file-sd.yml'])(
    'promtool check config accepts %s, its rule files and targets',
    (file) => {
      const res = runPromtool(['check', 'config', configPath(file)]);
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(res.stdout).toContain('SUCCESS: 2 rule files found');
    },
  );

  it('list several replicas: static targets by hand, or targets files', () => {
    const stat = parse(read('fleet-static.yml')) as {
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(stat.scrape_configs[0]!.job_name).toBe('chainproxy');
    expect(stat.scrape_configs[0]!.static_configs[0]!.targets.length).toBeGreaterThanOrEqual(2);
    const sd = parse(read('fleet-file-sd.yml')) as {
      scrape_configs: Array<{ job_name: string; file_sd_configs: Array<{ files: string[] }> }>;
    };
    expect(sd.scrape_configs[0]!.file_sd_configs[0]!.files).toEqual(['targets/*.yml']);
    const groups = parse(read('targets/chainproxy-replicas.yml')) as Array<{ targets: string[] }>;
    expect(groups.flatMap((g) => g.targets).length).toBeGreaterThanOrEqual(2);
  });
});

describePrometheus()('a real Prometheus with fleet-file-sd.yml and two replicas', () => {
  let up: FakeUpstream;
  let replicas: ProxyHandle[] = [];
  let prom: PrometheusServer | undefined;

  beforeAll(async () => {
    up = await startFakeUpstream();
    replicas = await Promise.all([0, 1].map(() => startTestProxy([up.url])));
    for (const r of replicas) for (let i = 0; i < 5; i++) await (await fetch(`${r.url}/block/list`)).arrayBuffer();
    const targets = replicas.map((r) => new URL(r.url).host);
    prom = await startPrometheus({
      target: targets.join(','),
      config: {
        file: 'fleet-file-sd.yml',
        files: {
          'fleet-file-sd.yml': read('fleet-file-sd.yml'),
          'recording-rules.yml': read('recording-rules.yml'),
          'alerts.yml': read('alerts.yml'),
          'targets/replicas.yml': `- targets: ${JSON.stringify(targets)}\n  labels: { service: chainproxy }\n`,
        },
      },
    });
  }, 30_000);

  afterAll(async () => {
    await prom?.stop();
    await Promise.all(replicas.map((r) => r.close()));
    await up?.close();
  });

  it('scrapes both replicas, and each per-replica panel shows both', async () => {
    const server = prom!;
    await expect
      .poll(async () => (await server.query('count(up{job="chainproxy"} == 1)')).series[0]?.value[1], {
        timeout: 30_000,
        interval: 500,
      })
      .toBe('2');
    const instances = replicas.map((r) => new URL(r.url).host).sort();
    const fleet = dashboardQueries().filter((q) =>
      ['Requests/s per replica', 'Best head per replica', 'Upstreams up per replica'].includes(q.panel),
    );
    expect(fleet).toHaveLength(3);
    for (const q of fleet) {
      const expr = withVariables(q.expr, { job: 'chainproxy', instance: '.*' });
      await expect
        .poll(async () => (await server.query(expr)).series.map((s) => s.metric['instance']).sort(), {
          timeout: 30_000,
          interval: 500,
          message: q.panel,
        })
        .toEqual(instances);
    }
    const versions = dashboardQueries().find((q) => q.panel === 'Replicas reporting, by version')!;
    const byVersion = await server.query(withVariables(versions.expr, { job: 'chainproxy', instance: '.*' }));
    expect(byVersion.series.map((s) => s.value[1])).toEqual(['2']);
  }, 60_000);
});
