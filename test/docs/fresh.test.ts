/**
 * The docs as generated: every generated part of docs/ equals what
 * `npm run docs` writes now (settings, metrics, errors, cache policies), the
 * README stays a front door (at most 200 lines), and every relative link of
 * the README and docs/ reaches a file the package ships and a heading there.
 */
import { GROUPS } from '../../src/config/groups.js';
import { FIELDS } from '../../src/config/fields.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_FILES, ROOT, generatedParts, partsIn, readDoc, render } from '../../scripts/docs/generate.js';
import { anchorsOf, relativeLinks } from './links.js';
import { RECIPE_LOCATION, RECIPE_SERVER } from '../../bench/lib/balancer.js';

let parts: Record<string, string> = {};
beforeAll(async () => {
  parts = await generatedParts();
});

describe('generated docs', () => {
  it('are fresh: npm run docs would change nothing', () => {
    for (const rel of GENERATED_FILES)
      expect(render(readDoc(rel), parts), `${rel} is stale: run npm run docs`).toBe(readDoc(rel));
  });

  it('hold every generated part in its place', () => {
    expect(partsIn(readDoc('docs/configuration.md'))).toEqual(['config', 'reload']);
    expect(partsIn(readDoc('docs/metrics.md'))).toEqual(['metrics']);
    expect(partsIn(readDoc('docs/api.md'))).toEqual(['endpoints', 'errors', 'policies']);
    expect(partsIn(readDoc('docs/operations.md'))).toEqual(['purge-tags']);
    expect(partsIn(readDoc('docs/architecture.md'))).toEqual(['fleet-messages']);
  });

  it('notice a stale part', () => {
    const stale = readDoc('docs/metrics.md').replace(
      '| `chainproxy_requests_total` |',
      '| `chainproxy_requests_old` |',
    );
    expect(stale).not.toBe(readDoc('docs/metrics.md'));
    expect(render(stale, parts)).toBe(readDoc('docs/metrics.md'));
  });

  it('list every setting, metric, error code and endpoint policy', () => {
    const metrics = readDoc('docs/metrics.md');
    for (const name of [
      'chainproxy_requests_total',
      'chainproxy_upstream_shed_total',
      'chainproxy_stream_open',
      'chainproxy_passthrough_requests_total',
      'chainproxy_api_key_requests_total',
      'chainproxy_refresh_ahead_total',
    ]) {
      expect(metrics).toContain(`| \`${name}\` |`);
    }
    expect(metrics).toMatch(/\| `chainproxy_upstream_head` \| gauge \| upstream \|/);
    const config = readDoc('docs/configuration.md');
    for (const g of GROUPS) expect(config).toContain(`### ${g.title}\n`);
    for (const f of FIELDS) expect(config).toContain(`| \`${f.env}\` |`);
    expect(readDoc('docs/api.md')).toMatch(/^\| 5032 \| 503 \|/m);
    expect(readDoc('docs/api.md')).toMatch(/^\| block\/max \| 1 s \|/m);
  });
});

const PACKAGED = (JSON.parse(readDoc('package.json')) as { files: string[] }).files;
const shipped = (rel: string): boolean => PACKAGED.some((f) => rel === f || rel.startsWith(`${f}/`));
/** The sentence a doc naming repository files carries (they are not in the npm package). */
const OUTSIDE_PACKAGE =
  'File paths under src/, test/, scripts/ and bench/ name ' +
  'files of the source repository (a clone), not of the npm package.';
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('README and docs/', () => {
  it('README is a front door of at most 200 lines', () => {
    expect(readDoc('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });

  it(
    'deploy recipes run the entry point itself (signals reach it, ' +
      'heap capped from CACHE_MAX_BYTES), never npm start or npx',
    () => {
      const readme = readDoc('README.md');
      const deploy = readme.slice(readme.indexOf('\n## Deploy it'), readme.indexOf('\n## Where to look next'));
      const blocks = [...deploy.matchAll(/```(sh|ini)\n([\s\S]*?)```/g)].map((m) => m[2]!);
      expect(blocks.length).toBeGreaterThanOrEqual(5);
      for (const b of blocks) {
        expect(b).not.toMatch(/npm start|npx /);
        expect(b, b).toMatch(/(node dist\/bin\/chainproxy\.js|\.\/node_modules\/\.bin\/chainproxy)\s*(#.*)?$/m);
      }
    },
  );

  it("a doc's contents list (links before its first section) names every section", () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    let checked = 0;
    for (const f of docs) {
      const text = readDoc(`docs/${f}`);
      const first = text.indexOf('\n## ');
      if (first < 0) continue;
      const listed = new Set([...text.slice(0, first).matchAll(/^- \[[^\]]+\]\(#([^)]+)\)/gm)].map((m) => m[1]));
      if (listed.size === 0) continue;
      checked++;
      const body = text.slice(first).replace(/```[\s\S]*?```/g, '');
      const sections = [...body.matchAll(/^## (.+)$/gm)].map((m) => [...anchorsOf(`## ${m[1]}`)][0]);
      expect(
        sections.filter((a) => !listed.has(a)),
        `sections of docs/${f} missing from its contents`,
      ).toEqual([]);
    }
    expect(checked).toBeGreaterThanOrEqual(1);
  });

  it('the rolling-restart recipe of operations.md is the balancer the bench (l) measured', () => {
    const ops = readDoc('docs/operations.md');
    const section = ops.slice(ops.indexOf('### Rolling restarts behind a balancer'));
    const recipe = /```nginx\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const servers = recipe.split('\n').filter((l) => /^\s+server \S+:\d+/.test(l));
    expect(servers.length).toBeGreaterThanOrEqual(2);
    for (const l of servers) expect(l).toContain(` ${RECIPE_SERVER};`);
    for (const l of RECIPE_LOCATION) expect(recipe).toContain(`        ${l}\n`);
  });

  it('send readers elsewhere with links (which the next test checks), never by a bare name of another doc', () => {
    const otherDoc = /(?:docs\/)?(?:api|architecture|configuration|metrics|operations|pages|stream)\.md/.source;
    const names = new RegExp(String.raw`(?<![\w/\`.#-])(README(?:\.md)?|${otherDoc})(?![\w-])`, 'g');
    for (const doc of DOCS) {
      const own = doc === 'README.md' ? 'README' : doc.slice('docs/'.length);
      const prose = readDoc(doc)
        .replace(/```[\s\S]*?```/g, '')
        .replace(/\[[^\]]*\]\([^)]*\)/g, '');
      for (const m of prose.matchAll(names)) {
        if (m[1]!.replace(/^docs\//, '').replace(/\.md$/, '') === own.replace(/\.md$/, '')) continue;
        expect.fail(
          `${doc} names ${m[1]} without a ` +
            `link: "…${prose.slice(Math.max(0, m.index - 60), m.index + 40).replace(/\n/g, ' ')}…"`,
        );
      }
    }
  });

  it('name only repository files that exist, and say those are not in the package', () => {
    for (const doc of DOCS) {
      const prose = readDoc(doc).replace(/```[\s\S]*?```/g, '');
      const cited = [...prose.matchAll(/`((?:src|test|bench|scripts)\/[^`\s]*)`/g)].map((m) =>
        m[1]!.replace(/[:#].*$/, '').replace(/\/$/, ''),
      );
      if (cited.length === 0) continue;
      expect(prose, `${doc} names repository files: it must say they are not in the package`).toContain(
        OUTSIDE_PACKAGE,
      );
      for (const path of cited) {
        // `src/endpoints/<name>.ts`, `src/endpoints/*.ts`: the folder exists.
        const real = /[<*]/.test(path) ? dirname(path) : path;
        expect(existsSync(join(ROOT, real)), `${doc} names ${path}, which does not exist`).toBe(true);
        expect(shipped(real), `${doc} names ${path} as outside the package, but the package ships it`).toBe(false);
      }
    }
  });

  it('link only to files the package ships, and to headings that exist', () => {
    for (const doc of DOCS) {
      for (const link of relativeLinks(readDoc(doc))) {
        const target = link.path === '' ? doc : normalize(relative(ROOT, join(ROOT, dirname(doc), link.path)));
        expect(existsSync(join(ROOT, target)), `${doc} → ${target}`).toBe(true);
        expect(shipped(target), `${doc} → ${target} is not in the package`).toBe(true);
        if (link.anchor !== null)
          expect(anchorsOf(readFileSync(join(ROOT, target), 'utf8')), `${doc} → ${target}#${link.anchor}`).toContain(
            link.anchor,
          );
      }
    }
  });
});
