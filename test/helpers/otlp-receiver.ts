/**
 * An OTLP/HTTP trace receiver: accepts POST /v1/traces, keeps each body, and
 * decodes http/json bodies into flat spans (http/protobuf bodies are kept
 * undecoded).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

/** OTLP span kinds. */
export const SERVER = 2;
export const CLIENT = 3;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

export interface Export {
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  url: string;
  exports: Export[];
  /** Spans of the http/json exports so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? ''));

function attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function decode(body: Buffer): ReceivedSpan[] {
  const parsed = JSON.parse(body.toString('utf8')) as OtlpBody;
  return (parsed.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: attributes(s.attributes),
        service,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: Export[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        exports.push({ contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/json') });
        res.end(req.headers['content-type'] === 'application/json' ? '{}' : '');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.filter((e) => e.contentType.startsWith('application/json')).flatMap((e) => decode(e.body)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
