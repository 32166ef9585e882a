/**
 * How spans reach the OTLP/HTTP endpoint: POSTed with undici, the client the
 * proxy already uses for its upstreams, instead of the SDK's node:http
 * transport. An export through node:http runs Node's outgoing-message code
 * with a client request's shapes every few seconds, and each time V8 drops
 * the optimized code of the server's response path (measured: about 25
 * reoptimizations per export; none through undici).
 * Otherwise as the SDK sends: its URL, headers, compression and timeout (read
 * from the OTEL_EXPORTER_OTLP_* variables by the SDK), its answers (2xx
 * success; 429, 502, 503, 504 and network errors retried with its backoff
 * within the timeout, honouring Retry-After), its bound on the answer read;
 * the connection is kept between exports.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import type { convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { Agent, request, type Dispatcher } from 'undici';
import { VERSION } from '../config/version.js';

const compress = promisify(gzip);

/** The SDK's exporter settings, read from the environment (url, headers, compression, timeout). */
type Settings = ReturnType<typeof convertLegacyHttpOptions>;

/** The SDK's bound on an export answer's body. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5000;

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Retry-After in ms (seconds or a date), as the SDK reads it. */
export function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const seconds = Number.parseInt(v, 10);
  if (Number.isInteger(seconds)) return seconds > 0 ? seconds * 1000 : -1;
  const delay = new Date(v).getTime() - Date.now();
  return delay >= 0 ? delay : 0;
}

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

class UndiciTransport implements IExporterTransport {
  readonly #o: Settings;
  /**
   * Kept open between exports (an OpenTelemetry Collector does not close idle connections): a new connection
   * per export doubles its cost. A server's Keep-Alive hint still wins.
   */
  readonly #agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });

  constructor(o: Settings) {
    this.#o = o;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const deadline = Date.now() + timeoutMillis;
    let backoff = FIRST_BACKOFF_MS;
    let result = await this.#once(data, timeoutMillis);
    for (let attempt = 1; result.status === 'retryable' && attempt < MAX_ATTEMPTS; attempt++) {
      const jittered = Math.min(backoff * (0.8 + Math.random() * 0.4), MAX_BACKOFF_MS);
      backoff *= 1.5;
      const wait = result.retryInMillis ?? jittered;
      const left = deadline - Date.now();
      if (wait > left) return result;
      await new Promise((r) => setTimeout(r, Math.max(wait, 0)));
      result = await this.#once(data, deadline - Date.now());
    }
    return result;
  }

  async #once(data: Uint8Array, timeoutMs: number): Promise<ExportResponse> {
    const o = this.#o;
    const headers: Record<string, string> = {
      ...(await o.headers()),
      'User-Agent': `${o.userAgent === undefined ? '' : `${o.userAgent} `}chainproxy/${VERSION}`,
    };
    let body: Uint8Array = data;
    if (o.compression === 'gzip') {
      body = await compress(data);
      headers['Content-Encoding'] = 'gzip';
    }
    try {
      const res = await request(o.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(Math.max(timeoutMs, 1)),
      });
      const answer = await readBounded(res.body);
      if (answer === null) return { status: 'failure', error: new Error('OTLP export answer exceeded 4 MiB') };
      if (res.statusCode <= 299) return { status: 'success', data: answer };
      if (RETRYABLE_STATUS.has(res.statusCode)) {
        const retryInMillis = retryAfterMs(res.headers['retry-after']);
        return retryInMillis === undefined ? { status: 'retryable' } : { status: 'retryable', retryInMillis };
      }
      return {
        status: 'failure',
        error: new OTLPExporterError(`HTTP ${res.statusCode}`, res.statusCode, answer.toString()),
      };
    } catch (err) {
      // Network errors and timeouts are retried, as the SDK's transport does.
      return { status: 'retryable', error: asError(err) };
    }
  }

  shutdown(): void {
    void this.#agent.close();
  }
}

export const undiciTransport = (o: Settings): IExporterTransport => new UndiciTransport(o);
