/**
 * Real /stream/activity events (block, rebase, gap, pending) validate with
 * ajv against the components of the /openapi.json the proxy serves; wrong
 * ones are rejected. Also the path registry's answers (405, preflight).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { touchedAt } from '../../src/sim/index.js';
import { rig, untilHub } from './kit.js';
import { ACTIVITY, onlyAt, readAndPublish, SEED, truthSet } from './activity-kit.js';

const r = rig();

describe('/stream/activity conforms to /openapi.json', () => {
  it('validates real block, pending, rebase and gap events', async () => {
    const { sim, proxy } = await r.start();
    const doc = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as OpenApiDocument;
    expect(doc.paths[ACTIVITY]?.get).toBeDefined();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'urn:chainproxy:openapi' } as object);
    const schema = (name: string) => {
      const v = ajv.getSchema(`urn:chainproxy:openapi#/components/schemas/${name}`);
      if (v === undefined) throw new Error(`no ${name} component`);
      return v;
    };
    const h0 = sim.chain.head();
    // A block with several transactions naming the address: find one in the next blocks.
    const heights = Array.from({ length: 8 }, (_, i) => h0 + 1 + i);
    const a = onlyAt(h0 + 1, heights);
    const c = await r.stream(proxy.url, { path: ACTIVITY, query: `?address=${a}` });
    await untilHub(proxy, () => proxy.stream.activity.status().watched === 1, 'the watch');
    sim.chain.advance();
    await readAndPublish(proxy, h0 + 1);
    proxy.stream.activity.touched.publishPending({
      hashes: ['ab'.repeat(32)],
      addresses: [a, [...touchedAt(SEED, h0 + 5).addresses][0]!],
      contracts: [],
    });
    await readAndPublish(proxy, h0 + 1, truthSet(h0 + 1, 'e'.repeat(64)));
    await c.until(() => c.events.length === 4, 5000, 'block, pending, rebase, block');
    expect(c.events.map((e) => e.type)).toEqual(['message', 'pending', 'rebase', 'message']);
    expect(c.events[1]!.id).toBeNull();
    expect(JSON.parse(c.events[1]!.data)).toEqual({ hashes: ['ab'.repeat(32)], addresses: [a], contracts: [] });
    const g = await r.stream(proxy.url, { path: ACTIVITY, query: `?contract=${a}`, lastEventId: String(h0 - 5) });
    await g.until(() => g.events.length >= 1, 5000, 'the gap');
    const check: [string, string][] = [
      ...c.events.map(
        (e) =>
          [
            e.type === 'message' ? 'ActivityEvent' : e.type === 'pending' ? 'ActivityPendingEvent' : 'RebaseEvent',
            e.data,
          ] as [string, string],
      ),
      ['GapEvent', g.events[0]!.data],
    ];
    for (const [name, d] of check) {
      const v = schema(name);
      expect(v(JSON.parse(d)), `${name} ${d} ${JSON.stringify(v.errors)}`).toBe(true);
    }
    const ev = JSON.parse(c.events[0]!.data) as Record<string, unknown>;
    expect((ev['txs'] as unknown[]).length).toBeGreaterThan(0);
    const v = schema('ActivityEvent');
    expect(v({ ...ev, extra: 1 })).toBe(false);
    expect(v({ ...ev, height: String(ev['height']) })).toBe(false);
    expect(v({ ...ev, txs: [{ tx_hash: 1 }] })).toBe(false);
  });

  it('answers HEAD and POST with 405 (GET only) and the CORS preflight', async () => {
    const { proxy } = await r.start();
    const head = await fetch(`${proxy.url}${ACTIVITY}?address=n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, OPTIONS');
    const pre = await fetch(`${proxy.url}${ACTIVITY}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://x.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'last-event-id',
      },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Last-Event-ID/i);
  });
});
