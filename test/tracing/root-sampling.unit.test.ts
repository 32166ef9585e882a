/** A root request's sampling decision, taken before any span: the SDK's TraceIdRatioBasedSampler's of the same id. */
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  ParentBasedSampler,
  RandomIdGenerator,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ratioSampling, RootSampler } from '../../src/tracing/root-sampling.js';

const sdkSamples = (sdk: TraceIdRatioBasedSampler, traceId: string): boolean =>
  sdk.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;

describe('RootSampler', () => {
  it.each([0, 1e-9, 0.01, 0.5, 0.999, 1])('decides as the SDK does of the id it makes (ratio %s)', (ratio) => {
    const roots = new RootSampler(ratio, new RandomIdGenerator());
    const sdk = new TraceIdRatioBasedSampler(ratio);
    let sampled = 0;
    const disagreed: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const drawn = roots.draw();
      const id = roots.traceId();
      if (!/^[0-9a-f]{32}$/.test(id) || drawn !== sdkSamples(sdk, id)) disagreed.push(`${drawn} ${id}`);
      if (drawn) sampled++;
    }
    expect(disagreed).toEqual([]);
    if (ratio === 0 || ratio === 1e-9) expect(sampled).toBe(0);
    if (ratio === 1) expect(sampled).toBe(5000);
    if (ratio === 0.5) expect(Math.abs(sampled - 2500)).toBeLessThan(300);
  });

  it('samples about `ratio` of the roots', () => {
    const roots = new RootSampler(0.01, new RandomIdGenerator());
    let sampled = 0;
    for (let i = 0; i < 200_000; i++) if (roots.draw()) sampled++;
    // 2000 expected, sd ~ 44.5
    expect(Math.abs(sampled - 2000)).toBeLessThan(250);
  });

  it("hands a sampled root's id to the SDK, whose sampler then records the span with it", () => {
    const roots = new RootSampler(0.5, new RandomIdGenerator());
    const provider = new BasicTracerProvider({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) }),
      idGenerator: roots.idGenerator,
    });
    const tracer = provider.getTracer('test');
    let checked = 0;
    for (let i = 0; i < 200; i++) {
      if (!roots.draw()) continue;
      roots.hand();
      const span = tracer.startSpan('GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      expect(span.isRecording()).toBe(true);
      expect(sdkSamples(new TraceIdRatioBasedSampler(0.5), span.spanContext().traceId)).toBe(true);
      // Handed once: the next root gets a fresh random id.
      const next = tracer.startSpan('GET', {}, ROOT_CONTEXT);
      expect(next.spanContext().traceId).not.toBe(span.spanContext().traceId);
      span.end();
      next.end();
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describe('ratioSampling', () => {
  it('reads the ratio samplers as the SDK does', () => {
    const s = (sampler: string | undefined, arg: string | undefined) =>
      ratioSampling({
        ...(sampler === undefined ? {} : { OTEL_TRACES_SAMPLER: sampler }),
        ...(arg === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: arg }),
      });
    expect(s('parentbased_traceidratio', '0.01')).toEqual({ ratio: 0.01, parentBased: true });
    expect(s(' traceidratio ', ' 0.25 ')).toEqual({ ratio: 0.25, parentBased: false });
    expect(s('traceidratio', '0')).toEqual({ ratio: 0, parentBased: false });
    // Blank, not a number, out of range: the SDK's default of 1.
    for (const arg of [undefined, '', 'x', '-0.1', '1.5'])
      expect(s('parentbased_traceidratio', arg)).toEqual({ ratio: 1, parentBased: true });
    for (const other of [undefined, '', 'always_on', 'parentbased_always_on', 'always_off', 'nonsense'])
      expect(s(other, '0.01')).toBeNull();
  });
});
