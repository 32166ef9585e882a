/**
 * The head stream's events conform to the document the proxy serves: the
 * `data` JSON of real events (simulator producing blocks, proxy in front)
 * validates with ajv against the HeadEvent component of /openapi.json, and
 * events that differ from it are rejected.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { Block, compileSpec, validateRecord } from '../../src/schema/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import { headOf, openStream, type SseClient } from '../stream/sse-client.js';

let sim: SimulatorHandle;
let proxy: ProxyHandle;
let stream: SseClient | undefined;
let validate: ValidateFunction;

beforeAll(async () => {
  sim = await startSimulator({ blockIntervalMs: 200 });
  proxy = await startTestProxy([sim.url], { upstream: { probeIntervalMs: 100 } });
  const doc = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: 'urn:chainproxy:openapi' } as object);
  const v = ajv.getSchema('urn:chainproxy:openapi#/components/schemas/HeadEvent');
  if (v === undefined) throw new Error('no HeadEvent component in /openapi.json');
  validate = v;
}, 30_000);

afterAll(async () => {
  stream?.close();
  await proxy?.close();
  await sim?.close();
});

const problems = (data: unknown): string[] =>
  validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);

describe('head events conform to /openapi.json', () => {
  it('the data of real events (the first and live ones) validates against HeadEvent', async () => {
    stream = await openStream(proxy.url);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    // The first event is sent at once, the next ones as the simulator makes blocks.
    await stream.until(
      () => stream!.events.filter((e) => headOf(e).block !== null).length >= 3,
      20_000,
      'three events with their block',
    );
    for (const e of stream.events) {
      const data: unknown = JSON.parse(e.data);
      expect(problems(data), e.data).toEqual([]);
      expect(e.id).toBe(String(headOf(e).height));
    }
    const withBlock = stream.events.map(headOf).find((d) => d.block !== null)!;
    expect(withBlock.block!['height']).toBe(withBlock.height);
  });

  it('a wrong event is rejected', () => {
    const real = headOf(stream!.events.find((e) => headOf(e).block !== null)!);
    expect(problems(real)).toEqual([]);
    const block = real.block!;
    const wrong: Array<[string, unknown]> = [
      ['height as a string', { ...real, height: String(real.height) }],
      ['no final_height', { height: real.height, time: real.time, block }],
      ['an extra field', { ...real, extra: 1 }],
      ['a block missing its hash', { ...real, block: { ...block, block_hash: undefined } }],
      ['a block that is not an object', { ...real, block: 'gone' }],
    ];
    for (const [what, data] of wrong) expect(problems(JSON.parse(JSON.stringify(data))), what).not.toEqual([]);
  });

  it(
    'a block with a field block/list does not have: accepted, ' +
      'as production accepts it; the strict record check refuses it',
    () => {
      const real = headOf(stream!.events.find((e) => headOf(e).block !== null)!);
      const block = { ...real.block!, server_timestamp: 1 };
      expect(problems({ ...real, block })).toEqual([]);
      expect(compileSpec(Block)(block)).toBe(true);
      expect(validateRecord(Block, block)).toEqual(['server_timestamp: unexpected field (Block)']);
    },
  );
});
