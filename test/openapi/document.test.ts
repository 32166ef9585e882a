/**
 * The OpenAPI document a running proxy serves declares every field its real
 * /status returns (precise invalidation, adaptive probes, an activity stream
 * open), and that answer validates against it. The document's other checks,
 * which need no socket, are in document.unit.test.ts.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import type { OpenApiDocument, SchemaObject } from '../../src/openapi/types.js';
import { startSimulator } from '../../src/sim/index.js';
import { LEAST_WAIT_MS } from '../helpers/until.js';
import { startTestProxy } from '../helpers/proxy.js';

/** Paths of fields in `value` that `schema` (followed where it declares properties) does not declare. */
function undeclared(schema: SchemaObject, value: unknown, path: string): string[] {
  const props = schema.properties as Record<string, SchemaObject> | undefined;
  if (props === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    props[k] === undefined ? [`${path}.${k}`] : undeclared(props[k], v, `${path}.${k}`),
  );
}

describe('the OpenAPI document', () => {
  it(
    'declares every field a real /status returns (precise invalidation, ' +
      'adaptive probes, an activity stream), and it validates',
    async () => {
      const sim = await startSimulator({ blockIntervalMs: 150 });
      const proxy = await startTestProxy([sim.url], {
        invalidation: { ...defaultConfig().invalidation, mode: 'precise' },
        upstream: { probeIntervalMs: 150, probeDenseMs: 25 },
      });
      const watch = new AbortController();
      try {
        const served = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as OpenApiDocument;
        const ajv = new Ajv2020({ strict: false, allErrors: true }).addSchema({
          ...served,
          $id: 'urn:chainproxy:status',
        } as object);
        const validate = ajv.getSchema('urn:chainproxy:status#/components/schemas/Status')!;
        const stream = await fetch(`${proxy.url}/stream/activity?address=n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg`, {
          signal: watch.signal,
        });
        expect(stream.status).toBe(200);
        await fetch(`${proxy.url}/block/max`);
        await fetch(`${proxy.url}/block/max`);
        type Live = {
          activity: { streams: number };
          heads: { windowMs: unknown; detectionDelayMs: { samples: number } };
          cache: { invalidation: { coveredHeight: unknown } };
        };
        const body = await vi.waitFor(
          async () => {
            const b = ((await (await fetch(`${proxy.url}/status`)).json()) as { data: Live }).data;
            if (
              b.activity.streams !== 1 ||
              b.heads.windowMs === null ||
              b.heads.detectionDelayMs.samples === 0 ||
              b.cache.invalidation.coveredHeight === null
            )
              throw new Error('not yet');
            return b;
          },
          { timeout: LEAST_WAIT_MS, interval: 50 },
        );
        expect(validate(body) ? [] : validate.errors).toEqual([]);
        expect(undeclared(served.components.schemas['Status']!, body, 'status')).toEqual([]);
      } finally {
        watch.abort();
        await proxy.close();
        await sim.close();
      }
    },
  );
});
