/**
 * OpenTelemetry tracing, configured only by the standard OTEL_* environment
 * variables. Off unless an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): then no OpenTelemetry module is
 * loaded (sdk.ts is imported dynamically, and only when configured) and every
 * place that makes spans pays one null check.
 *
 * Spans are made in one place per concern: the SERVER span per request at
 * the server's entrance (fast-hit.ts's server factory, ended when the answer
 * is written), named by the epilogue (route, cache outcome); a CLIENT span per
 * upstream attempt (upstream/attempt.ts, sending `traceparent`) and per
 * Redis read (redis/redis-store.ts). Spans outside a request (probes, the
 * head watcher, the block reader) are not made.
 */
import type { Tracing } from './types.js';

/** Whether the environment asks for traces: an OTLP endpoint is set and the SDK is not disabled. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  return Boolean(endpoint) && env['OTEL_SDK_DISABLED'] !== 'true' && env['OTEL_TRACES_EXPORTER'] !== 'none';
}

let current: Tracing | null = null;

/** The process's tracing, or null (off). */
export const tracing = (): Tracing | null => current;

/** Starts tracing when the environment asks for it (before the server is built). */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<void> {
  if (current !== null || !tracingConfigured(env)) return;
  const { otelTracing } = await import('./sdk.js');
  current = otelTracing(env);
}

/** Exports what is queued and stops (at shutdown). */
export async function stopTracing(): Promise<void> {
  const t = current;
  current = null;
  await t?.shutdown();
}
