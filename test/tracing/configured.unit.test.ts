/** When tracing is on: an OTLP endpoint is set, and the SDK is not disabled. */
import { describe, expect, it } from 'vitest';
import { tracingConfigured } from '../../src/tracing/tracing.js';

describe('tracingConfigured', () => {
  it('is off without an endpoint, whatever else is set', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  });

  it('is on with either endpoint variable', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });

  it('is off when the SDK is disabled or the traces exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});
