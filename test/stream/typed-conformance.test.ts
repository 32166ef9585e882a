/**
 * The named events conform to the document the proxy serves: the `data` of
 * real `gap` and `rebase` events validates with ajv against the GapEvent and
 * RebaseEvent components of /openapi.json, and the ids are what they say.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { rig } from './kit.js';

const r = rig();

describe('gap and rebase events conform to /openapi.json', () => {
  it('validates real gap and rebase events', async () => {
    const { sim, proxy, relays } = await r.start({ limits: { maxPageSize: 100 } }, 2);
    const doc = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as OpenApiDocument;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'urn:chainproxy:openapi' } as object);
    const schema = (name: string) => {
      const v = ajv.getSchema(`urn:chainproxy:openapi#/components/schemas/${name}`);
      if (v === undefined) throw new Error(`no ${name} component`);
      return v;
    };
    const a = await r.stream(proxy.url);
    await a.until(() => a.events.length === 1);
    const real = sim.chain.head();
    for (const x of relays) x.lie(real + 300);
    await a.until(() => a.heights().includes(real + 300), 10_000, 'the jump');
    for (const x of relays) x.lie(null);
    await a.until(() => a.typed('rebase').length === 1, 10_000, 'the rebase');
    const gap = a.typed('gap')[0]!;
    const rebase = a.typed('rebase')[0]!;
    for (const [e, name] of [
      [gap, 'GapEvent'],
      [rebase, 'RebaseEvent'],
    ] as const) {
      const validate = schema(name);
      expect(validate(JSON.parse(e.data)), `${name} ${e.data} ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(JSON.parse(gap.data)).toEqual({ from: real + 1, to: real + 200 });
    expect(gap.id).toBe(String(real + 200));
    expect(rebase.id).toBe(String(JSON.parse(rebase.data).height));
    // A wrong one is rejected.
    expect(schema('GapEvent')({ from: 1 })).toBe(false);
    expect(schema('RebaseEvent')({ height: 1, from: 2, final_height: null, time: 3, extra: true })).toBe(false);
  });
});
