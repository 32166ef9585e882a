/**
 * A new fleet message kind touches 2 files: its row in the table
 * (src/fleet/messages.ts) and the file that publishes and listens to it.
 * The transports (Redis pub/sub, the cluster primary's IPC) never name a kind,
 * so they need no edit; no per-kind publish method exists; each kind of the
 * table is published and heard in one file besides the table. A bus is
 * reached as `bus` or `peers` (`bus.publish('kind', …)`, `bus.on('kind', …)`).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS, type Kind } from '../../src/fleet/messages.js';
import { tsFiles } from '../helpers/source-tree.js';

const ROOT = join(import.meta.dirname, '../..');
const kinds = Object.keys(KINDS) as Kind[];
/** The transports' files, and the kind names each may hold for another reason. */
const TRANSPORTS: Record<string, readonly string[]> = {
  'src/fleet/bus.ts': [],
  'src/fleet/link.ts': [],
  'src/cluster/protocol.ts': ['filled'], // the lease protocol's own `filled` message, not the bus kind
  'src/cluster/worker-fleet.ts': ['filled'], // the same
  'src/cluster/hub.ts': ['filled', 'head'], // the same, and heads kept for workers that join later
};

/** The source without comments. */
const code = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const files = tsFiles(join(ROOT, 'src')).map((p) => ({ path: relative(ROOT, p), src: code(readFileSync(p, 'utf8')) }));

/** Kinds named as string literals in `src`. */
const named = (src: string): string[] => kinds.filter((k) => src.includes(`'${k}'`));

/** Files that publish or listen to `kind`. */
const handlers = (kind: Kind): string[] => {
  const use = new RegExp(`\\b(?:bus|peers)\\??\\.(?:on|off|publish)\\(\\s*'${kind}'`);
  return files.filter((f) => use.test(f.src)).map((f) => f.path);
};

const upper = (k: string): string => k[0]!.toUpperCase() + k.slice(1);

describe('the check itself', () => {
  it('finds kinds named, handled and published per kind', () => {
    expect(named("send({ t: 'heads' }); x = 'pool'")).toEqual(['heads', 'pool']);
    expect(code("// 'head'\n/* 'pool' */ x")).not.toContain("'");
    const use = new RegExp(`\\b(?:bus|peers)\\??\\.(?:on|off|publish)\\(\\s*'pool'`);
    expect(use.test("this.#o.bus.publish('pool', l, s)")).toBe(true);
    expect(use.test("o.peers?.on('pool', f)")).toBe(true);
    expect(use.test("tracker.on('pool', f)")).toBe(false);
  });
});

describe('fleet messages: one table, two transports', () => {
  it('the transports name no kind (besides the reasons listed)', () => {
    for (const [path, allowed] of Object.entries(TRANSPORTS)) {
      const src = files.find((f) => f.path === path)?.src;
      expect(src, path).toBeDefined();
      expect({ path, kinds: named(src!).filter((k) => !allowed.includes(k)) }).toEqual({ path, kinds: [] });
    }
  });

  it('no per-kind publish method (publishHead, publishPool, …)', () => {
    const perKind = new RegExp(`\\bpublish(?:${kinds.map(upper).join('|')})\\b`);
    expect(files.filter((f) => perKind.test(f.src)).map((f) => f.path)).toEqual([]);
  });

  it('each kind is published and heard in one file besides the table', () => {
    for (const kind of kinds) expect({ kind, files: handlers(kind).length }).toEqual({ kind, files: 1 });
  });
});
