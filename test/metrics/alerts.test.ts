/**
 * Alerting rules (config/prometheus/alerts.yml): promtool accepts them, its
 * unit tests (alerts.test.yml) pass, every alert is tested both firing and
 * quiet, uses only metrics the proxy exposes, has a runbook section in
 * docs/operations.md that its annotation links, and is loaded by prometheus.yml.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describePromtool, runPromtool } from '../helpers/prometheus.js';
import { metricNamesIn } from './dashboard.js';
import { knownNames } from './known-names.js';

const path = (rel: string) => fileURLToPath(new URL(`../../${rel}`, import.meta.url));
const read = (rel: string) => readFileSync(path(rel), 'utf8');

interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}

const rules = (parse(read('config/prometheus/alerts.yml')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (g) => g.rules,
);
const alerts = rules.filter((r) => r.alert !== undefined);
const unit = parse(read('config/prometheus/alerts.test.yml')) as { tests: Array<{ alert_rule_test?: AlertTest[] }> };
const cases = unit.tests.flatMap((t) => t.alert_rule_test ?? []);

describePromtool()('promtool', () => {
  it('check rules accepts alerts.yml', () => {
    const res = runPromtool(['check', 'rules', path('config/prometheus/alerts.yml')]);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(res.status).toBe(0);
  });

  it('test rules passes every alert unit test', () => {
    const res = runPromtool(['test', 'rules', path('config/prometheus/alerts.test.yml')]);
    expect(res.stdout + res.stderr).toContain('SUCCESS');
    expect(res.status).toBe(0);
  });
});

describe('alert rules', () => {
  it('cover what operators asked for', () => {
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'ChainproxyUpstreamDown',
        'ChainproxyNoFreshUpstream',
        'ChainproxyHeadNotAdvancing',
        'ChainproxyErrorRatioHigh',
        'ChainproxyHitRatioDrop',
        'ChainproxyBreakerOpen',
        'ChainproxyRedisDown',
        'ChainproxyLatencyP99High',
        'ChainproxyRateLimitSurge',
        'ChainproxyShedding',
        'ChainproxyQuorumDisputes',
        'ChainproxyLogLinesDropped',
      ]),
    );
  });

  it('each is unit-tested firing and quiet', () => {
    for (const a of alerts) {
      const mine = cases.filter((c) => c.alertname === a.alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${a.alert} firing`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${a.alert} quiet`,
      ).toBe(true);
    }
  });

  it('each has a severity, a summary and a runbook section of docs/operations.md', () => {
    const ops = read('docs/operations.md');
    const section = ops.slice(ops.indexOf('\n## Alerts'));
    for (const a of alerts) {
      expect(['critical', 'warning'], a.alert).toContain(a.labels?.severity);
      expect(a.annotations?.summary, a.alert).toBeTruthy();
      expect(a.annotations?.runbook, a.alert).toBe(`docs/operations.md#${a.alert!.toLowerCase()}`);
      expect(section, a.alert).toMatch(new RegExp(`^### ${a.alert!}\\n\\nFires when: .+`, 'm'));
    }
  });

  it('use only metrics the proxy exposes', async () => {
    const known = await knownNames();
    known.add('up');
    for (const r of rules)
      for (const name of metricNamesIn(r.expr)) expect(known, `${name} in ${r.alert ?? '?'}`).toContain(name);
  });

  it('are loaded by prometheus.yml', () => {
    const cfg = parse(read('config/prometheus/prometheus.yml')) as { rule_files: string[] };
    expect(cfg.rule_files).toContain('alerts.yml');
  });
});
