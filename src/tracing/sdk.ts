/**
 * The OpenTelemetry SDK behind `Tracing` (tracing.ts), loaded only when an
 * OTLP endpoint is configured. Everything is read from the standard
 * variables, by the SDK itself where it can: the endpoint and headers by the
 * exporter, OTEL_TRACES_SAMPLER / _ARG by the provider, OTEL_BSP_* by the
 * batch processor, OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES by the
 * resource detector; OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (or
 * OTEL_EXPORTER_OTLP_PROTOCOL) picks the exporter: http/protobuf (the
 * default) or http/json.
 */
import type { IncomingMessage } from 'node:http';
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { createOtlpNetworkExportDelegate, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { VERSION } from '../config/version.js';
import { undiciTransport } from './export-transport.js';
import { ratioSampling, RootSampler, type RatioSampling } from './root-sampling.js';
import type { Tracing } from './types.js';

/**
 * The OTLP/HTTP exporter the protocol variables name (http/protobuf unless http/json is asked), configured from the
 * environment by the SDK and sending through undici (export-transport.ts).
 */
function exporterFor(env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'];
  const json = protocol === 'http/json';
  const options = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', {
    'Content-Type': json ? 'application/json' : 'application/x-protobuf',
  });
  const metrics = createOtlpHttpExporterMetrics(
    'otlp_http_span_exporter',
    TraceExporterMetricsHelper,
    options.url,
    undefined,
  );
  const serializer = json ? JsonTraceSerializer : ProtobufTraceSerializer;
  return new OTLPExporterBase(
    createOtlpNetworkExportDelegate(options, serializer, metrics, undiciTransport(options)),
  ) as SpanExporter;
}

const errorType = (err: unknown): string => {
  const kind = typeof err === 'object' && err !== null ? (err as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? kind : err instanceof Error ? err.name : 'Error';
};

const pathOf = (url: string | undefined): string => {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

function named(span: Span, req: IncomingMessage, route: string, cache: string): void {
  span.updateName(`${req.method ?? 'GET'} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('chainproxy.cache', cache);
}

function ended(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The SDK's sampler for a ratio sampling (the same the SDK would build from the variables). */
function samplerOf(s: RatioSampling): Sampler {
  const byId = new TraceIdRatioBasedSampler(s.ratio);
  return s.parentBased ? new ParentBasedSampler({ root: byId }) : byId;
}

export function otelTracing(env: NodeJS.ProcessEnv): Tracing {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const serviceName = env['OTEL_SERVICE_NAME'] ? {} : { 'service.name': 'chainproxy' };
  const resource = defaultResource()
    .merge(resourceFromAttributes({ ...serviceName, 'service.version': VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  // A sampler deciding roots by trace id: a root request is decided before any span is built (root-sampling.ts).
  const sampling = ratioSampling(env);
  const roots = sampling === null ? null : new RootSampler(sampling.ratio, new RandomIdGenerator());
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporterFor(env))],
    ...(roots === null || sampling === null ? {} : { sampler: samplerOf(sampling), idGenerator: roots.idGenerator }),
  });
  const tracer = provider.getTracer('chainproxy', VERSION);
  const w3c = new W3CTraceContextPropagator();
  const spans = new WeakMap<IncomingMessage, Span>();

  /** The incoming trace context (none: the root, without parsing anything). */
  const parentOf = (req: IncomingMessage): Context =>
    req.headers.traceparent === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);

  // Attributes are set once sampled: a span sampled out (most, at a ratio) costs no more than its decision.
  const serverSpan = (req: IncomingMessage, parent: Context, startTime: number | undefined): Span => {
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, startTime }, parent);
    if (span.isRecording()) {
      span.setAttribute('http.request.method', method);
      span.setAttribute('url.path', pathOf(req.url));
    }
    return span;
  };

  /**
   * The span of a request with no incoming trace context when roots are
   * decided by ratio: drawn first; sampled, the SDK makes it with the drawn
   * id; sampled out, none (null), or from `carried` a non-recording one for a
   * request whose context is read (the `traceparent` sent upstream), as the SDK
   * would make it.
   */
  const rootSpan = (req: IncomingMessage, startTime: number | undefined, roots: RootSampler): Span | null => {
    if (!roots.draw()) return null;
    roots.hand();
    return serverSpan(req, ROOT_CONTEXT, startTime);
  };
  const carried = (roots: RootSampler): Span =>
    trace.wrapSpanContext({ traceId: roots.traceId(), spanId: roots.spanId(), traceFlags: TraceFlags.NONE });

  /** `run` in a CLIENT span under the current request's span (or plainly, outside any request). */
  async function inSpan<T>(
    name: string,
    attributes: Attributes,
    run: (ctx: Context) => Promise<T>,
    done?: (span: Span, answer: T) => void,
  ): Promise<T> {
    const active = context.active();
    if (trace.getSpan(active) === undefined) return run(active);
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active);
    const ctx = trace.setSpan(active, span);
    try {
      const answer = await context.with(ctx, run, undefined, ctx);
      done?.(span, answer);
      return answer;
    } catch (err) {
      span.setAttribute('error.type', errorType(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  }

  return {
    entrance: (handler) => (req, res) => {
      const parent = parentOf(req);
      const span =
        roots === null || parent !== ROOT_CONTEXT
          ? serverSpan(req, parent, undefined)
          : (rootSpan(req, undefined, roots) ?? carried(roots));
      if (span.isRecording()) {
        spans.set(req, span);
        res.once('close', () => ended(span, res.statusCode));
      }
      context.with(trace.setSpan(parent, span), handler, undefined, req, res);
    },
    answered: (req, route, cache, status, started) => {
      let span = spans.get(req);
      if (span === undefined) {
        // Answered before the router: no span was made at the entrance (and nothing reads its context).
        const parent = parentOf(req);
        const made =
          roots === null || parent !== ROOT_CONTEXT ? serverSpan(req, parent, started) : rootSpan(req, started, roots);
        if (made === null || !made.isRecording()) return;
        span = made;
        named(span, req, route, cache);
        ended(span, status);
        return;
      }
      named(span, req, route, cache);
    },
    client: (call, headers, run) => {
      const attributes = {
        'http.request.method': 'GET',
        'url.path': pathOf(call.path),
        'chainproxy.upstream': call.upstream,
      };
      return inSpan(
        'GET',
        attributes,
        (ctx) => {
          const sent: Record<string, string> = { ...headers };
          w3c.inject(ctx, sent, defaultTextMapSetter);
          return run(sent);
        },
        (span, answer) => span.setAttribute('http.response.status_code', answer.status),
      );
    },
    redis: (operation, run) =>
      inSpan(`redis ${operation}`, { 'db.system.name': 'redis', 'db.operation.name': operation }, run),
    shutdown: () => provider.shutdown(),
  };
}
