import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describePromtool, runPromtool } from '../helpers/prometheus.js';
import {
  allPanels,
  dashboardQueries,
  DATASOURCE_UID,
  DASHBOARD_PATH,
  loadDashboard,
  metricNamesIn,
} from './dashboard.js';
import { knownNames } from './known-names.js';

const configPath = (rel: string) => fileURLToPath(new URL(`../../config/${rel}`, import.meta.url));

describePromtool()('Prometheus config', () => {
  it('promtool check config accepts config/prometheus/prometheus.yml (and its rule files)', () => {
    const res = runPromtool(['check', 'config', configPath('prometheus/prometheus.yml')]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('SUCCESS');
  });

  it('promtool check rules accepts the recording rules', () => {
    const res = runPromtool(['check', 'rules', configPath('prometheus/recording-rules.yml')]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });
});

describe('Prometheus config contents', () => {
  it('scrapes the proxy on localhost:8080/metrics every 5s', () => {
    const cfg = parse(readFileSync(configPath('prometheus/prometheus.yml'), 'utf8')) as {
      global: { scrape_interval: string };
      scrape_configs: Array<{ job_name: string; metrics_path: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(cfg.global.scrape_interval).toBe('5s');
    const job = cfg.scrape_configs.find((j) => j.job_name === 'chainproxy');
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs[0]?.targets).toEqual(['localhost:8080']);
  });

  it('recording rules use only metrics the module defines', async () => {
    const known = await knownNames();
    const rules = parse(readFileSync(configPath('prometheus/recording-rules.yml'), 'utf8')) as {
      groups: Array<{ rules: Array<{ expr: string }> }>;
    };
    const exprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
    expect(exprs.length).toBeGreaterThan(0);
    for (const expr of exprs)
      for (const name of metricNamesIn(expr)) expect(known, `${name} in ${expr}`).toContain(name);
  });
});

describe('Grafana dashboard', () => {
  const dashboard = loadDashboard();

  it('is a provisionable dashboard with a stable uid and schemaVersion ~39', () => {
    expect(dashboard.uid).toBe('chainproxy');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = allPanels(dashboard).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every panel has targets with a PromQL expr on the datasource the importer picks', () => {
    const panels = allPanels(dashboard);
    expect(panels.length).toBeGreaterThanOrEqual(40);
    for (const p of panels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(p.datasource?.uid, p.title).toBe(DATASOURCE_UID);
      for (const t of p.targets ?? []) {
        expect(t.expr?.trim(), `${p.title} ${t.refId}`).toBeTruthy();
        expect(t.datasource?.uid, p.title).toBe(DATASOURCE_UID);
      }
    }
  });

  it('is portable: a datasource variable, job and instance variables, nothing hard-coded', () => {
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const name of ['job', 'instance']) {
      const v = vars.get(name);
      expect(v, name).toMatchObject({
        type: 'query',
        includeAll: true,
        multi: true,
        allValue: '.*',
        datasource: { uid: DATASOURCE_UID },
      });
      const q = typeof v?.query === 'string' ? v.query : v?.query?.query;
      expect(q, name).toMatch(new RegExp(`^label_values\\(chainproxy_\\w+(\\{job=~"\\$job"\\})?, ${name}\\)$`));
    }
    const text = readFileSync(DASHBOARD_PATH, 'utf8');
    expect(text).not.toMatch(/"uid": "prometheus"/);
    expect(text).not.toMatch(/job=\\"chainproxy\\"/);
    // Every selector of every query is narrowed to the chosen jobs and instances.
    for (const q of dashboardQueries(dashboard)) {
      for (const m of q.expr.matchAll(/(?<![\w:])((?:chainproxy|process|nodejs)_\w+)(\{[^}]*\})?/g)) {
        expect(m[2] ?? '', `${q.panel}: ${m[1]!}`).toContain('job=~"$job",instance=~"$instance"');
      }
    }
  });

  it('every expression references only metric names the module defines', async () => {
    const known = await knownNames();
    const used = new Set<string>();
    for (const q of dashboardQueries(dashboard)) {
      const names = metricNamesIn(q.expr);
      expect(names.length, `${q.panel}: ${q.expr}`).toBeGreaterThan(0);
      for (const name of names) {
        expect(known, `${q.panel}: ${name} in ${q.expr}`).toContain(name);
        used.add(name);
      }
    }
    // The dashboard covers the families the issue asks for.
    for (const name of [
      'chainproxy_requests_total',
      'chainproxy_request_duration_seconds_bucket',
      'chainproxy_upstream_requests_total',
      'chainproxy_upstream_requests_saved_total',
      'chainproxy_cache_bytes',
      'chainproxy_cache_entries',
      'chainproxy_cache_evictions_total',
      'chainproxy_upstream_head',
      'chainproxy_chain_best_head',
      'chainproxy_upstream_lag_blocks',
      'chainproxy_upstream_breaker_state',
      'chainproxy_redis_up',
      'chainproxy_upstream_shed_total',
      'chainproxy_page_requests_total',
      'chainproxy_page_composition_seconds_bucket',
      'chainproxy_stream_open',
      'chainproxy_stream_refused_total',
      'chainproxy_passthrough_requests_total',
      'chainproxy_passthrough_failures_total',
      'chainproxy_api_key_requests_total',
      'chainproxy_rate_limit_refused_total',
      'chainproxy_api_key_unknown_total',
      'chainproxy_refresh_ahead_total',
      'chainproxy_chain_head_rebases_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'chainproxy_invalidation_blocks_total',
      'chainproxy_invalidation_fallbacks_total',
      'chainproxy_invalidation_tags_per_block_bucket',
      'chainproxy_invalidation_entries_total',
      'chainproxy_invalidation_read_seconds_bucket',
      'chainproxy_invalidation_tag_bytes',
      'chainproxy_head_detection_delay_seconds_bucket',
      'chainproxy_head_probes_total',
      'chainproxy_refetches_unchanged_total',
      'chainproxy_activity_streams',
      'chainproxy_activity_watched_entities',
      'chainproxy_activity_events_delivered_total',
      'chainproxy_activity_dropped_total',
      'chainproxy_activity_history_bytes',
    ])
      expect(used, name).toContain(name);
  });

  it('the metric-name parser ignores functions, labels, keywords and numbers', () => {
    expect(metricNamesIn('histogram_quantile(0.99, sum by (cache, le) (rate(foo_bucket{a="b c"}[1m])))')).toEqual([
      'foo_bucket',
    ]);
    expect(
      metricNamesIn('(sum(rate(a_total[1m])) or vector(0)) / clamp_min(sum(rate(b_total{x=~"y|z"}[1m])), 1e-9)').sort(),
    ).toEqual(['a_total', 'b_total']);
    expect(metricNamesIn('max by (u) (x{s="open"}) + 2 * max without (s) (y) unless on (u) z')).toEqual([
      'x',
      'y',
      'z',
    ]);
  });
});

describe('Grafana provisioning', () => {
  it('provisions the datasource with uid prometheus and the dashboards folder', () => {
    const ds = parse(readFileSync(configPath('grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
      apiVersion: number;
      datasources: Array<{ uid: string; type: string; url: string }>;
    };
    expect(ds.apiVersion).toBe(1);
    expect(ds.datasources[0]).toMatchObject({ uid: 'prometheus', type: 'prometheus' });
    const dash = parse(readFileSync(configPath('grafana/provisioning/dashboards/chainproxy.yml'), 'utf8')) as {
      apiVersion: number;
      providers: Array<{ type: string; options: { path: string } }>;
    };
    expect(dash.apiVersion).toBe(1);
    expect(dash.providers[0]?.type).toBe('file');
    expect(dash.providers[0]?.options.path).toBeTruthy();
  });
});
