/**
 * An OTLP/HTTP receiver for the benches: accepts every export (counted) and,
 * like an OpenTelemetry Collector's receiver, does not close idle
 * connections. `env` is what a proxy needs to trace into it at the sampling
 * the tracing target names (`parentbased_traceidratio`, 1 %).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  url: string;
  /** OTEL_* variables: export here, sample 1 % of roots, follow the caller's decision. */
  env: Record<string, string>;
  exports(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  sink.keepAliveTimeout = 600_000;
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    },
    exports: () => exports,
    close: () =>
      new Promise<void>((r) => {
        sink.closeAllConnections();
        sink.close(() => r());
      }),
  };
}
