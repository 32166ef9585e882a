/** A proxy with passthrough routes in front of fake legacy backends, and a raw HTTP client. */
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { ProxyHandle } from '../../src/app.js';
import type { PassthroughConfig, PassthroughRoute } from '../../src/config/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy, type ConfigPatch } from '../helpers/proxy.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** node:http, because fetch refuses to send hop-by-hop request headers. */
export function raw(
  base: string,
  path: string,
  opts: { method?: string; headers?: OutgoingHttpHeaders } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    // path as given (a URL string would be normalized: /api/../x becomes /x)
    const req = httpRequest(
      { host: u.hostname, port: u.port, path, method: opts.method ?? 'GET', headers: opts.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export function json(r: RawResponse): { code: number; msg: string; data: unknown } {
  return JSON.parse(r.body.toString('utf8')) as { code: number; msg: string; data: unknown };
}

export interface PassEnv {
  proxy: ProxyHandle;
  api: FakeUpstream;
  close(): Promise<void>;
}

/** A passthrough configuration: `routes`, the defaults for the rest, `more` over them. */
export function passConfig(routes: PassthroughRoute[], more: Partial<PassthroughConfig> = {}): PassthroughConfig {
  return { routes, timeoutMs: 10_000, cache: {}, ignoreParams: [], cacheMaxBodyBytes: 1024 * 1024, ...more };
}

export async function startPassEnv(routes: PassthroughRoute[], patch: ConfigPatch = {}): Promise<PassEnv> {
  const api = await startFakeUpstream();
  const proxy = await startTestProxy([api.url], {
    ...patch,
    passthrough: patch.passthrough ?? passConfig(routes),
  });
  return {
    proxy,
    api,
    async close() {
      await proxy.close();
      await api.close();
    },
  };
}
