/**
 * The Nebulas explorer front end's own backend, as a stand-in (not a test
 * file itself): `/explorer/*` answers as `{code, msg, data}` envelopes with no
 * CORS and no Cache-Control header, the way that backend answers, counted per
 * path and query. And a proxy configured the way an operator puts it behind
 * chainproxy, from the environment variables of the recipe in operations.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyHandle } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';

/** The explorer's requests to its backend (what its screens ask, `timestamp=` aside). */
export const EXPLORER_GETS: readonly string[] = [
  '/explorer/tx/count',
  '/explorer/block/list?page_size=40',
  '/explorer/block/list?page=1&page_size=25',
  '/explorer/tx/latest',
  '/explorer/nasinfo',
  '/explorer/tx/detail?hash=1f0b0e2c57a1f9d0c0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b',
  '/explorer/address?address=n1FF1nz6tarkDVwWQkMnnwFPuPKUaQTdptE',
  '/explorer/contract?contract=n1zUNqeBPvsyrw5zxp9mKcDdLTjuaEL7s39',
  '/explorer/token/holders?contract=n1zUNqeBPvsyrw5zxp9mKcDdLTjuaEL7s39&p=1',
  '/explorer/search?q=4842000',
];

/** The dashboard's 5 s poll. */
export const DASHBOARD_POLL: readonly string[] = ['/explorer/tx/latest', '/explorer/block/list?page_size=40'];

/** The proxy's settings for the explorer's backend at `backendUrl`, as an operator writes them. */
function explorerEnv(backendUrl: string): Record<string, string> {
  return {
    PASSTHROUGH: `/explorer=${backendUrl}`,
    PASSTHROUGH_CACHE: '/explorer=head',
    PASSTHROUGH_IGNORE_PARAMS: 'timestamp',
  };
}

export interface ExplorerBackend extends FakeUpstream {
  /** Requests for `pathAndQuery` as the backend received it, a `timestamp` parameter aside. */
  countKey(pathAndQuery: string): number;
  /** Requests with the given method. */
  countMethod(method: string): number;
}

function dataFor(url: URL): unknown {
  const p = url.pathname;
  if (p === '/explorer/tx/count') return [{ date: '2026-11-27', count: 7311 }];
  if (p === '/explorer/block/list') return { page: Number(url.searchParams.get('page') ?? 1), list: [] };
  if (p === '/explorer/tx/latest') return [];
  if (p === '/explorer/nasinfo') return { addressCount: 1000, contractCount: 10 };
  if (p === '/explorer/search') return { type: 'block', q: url.searchParams.get('q') };
  if (p === '/explorer/tx/detail') return { hash: url.searchParams.get('hash') };
  if (p === '/explorer/address') return { address: { hash: url.searchParams.get('address') } };
  if (p === '/explorer/contract') return { contract: url.searchParams.get('contract') };
  if (p === '/explorer/token/holders') return { holders: [], page: 1, totalPageCount: 1, totalHolderCount: 0 };
  return undefined;
}

function answer(req: IncomingMessage, res: ServerResponse, serial: number): void {
  const url = new URL(req.url ?? '/', 'http://backend');
  const data = dataFor(url);
  res.statusCode = data === undefined ? 404 : 200;
  // No Access-Control-*, no Cache-Control, no ETag: the real backend sends none.
  res.setHeader('content-type', 'application/json;charset=UTF-8');
  const body = data === undefined ? { code: 404, msg: 'not found', data: null } : { code: 0, msg: 'success', data };
  res.end(JSON.stringify({ ...body, serial, server_timestamp: Date.now() }));
}

function withoutStamp(pathAndQuery: string): string {
  const url = new URL(pathAndQuery, 'http://backend');
  url.searchParams.delete('timestamp');
  return url.pathname + url.search;
}

export async function startExplorerBackend(): Promise<ExplorerBackend> {
  let serial = 0;
  const up = await startFakeUpstream((req, res) => answer(req, res, ++serial));
  return Object.assign(up, {
    countKey: (pathAndQuery: string) => up.requests.filter((r) => withoutStamp(r.url) === pathAndQuery).length,
    countMethod: (method: string) => up.requests.filter((r) => r.method === method).length,
  });
}

/** A proxy with the API on `upstreamUrl` and the explorer's backend passed through and cached per head. */
export async function startExplorerProxy(upstreamUrl: string, backendUrl: string): Promise<ProxyHandle> {
  const { passthrough } = loadConfig(explorerEnv(backendUrl));
  return startTestProxy([upstreamUrl], { passthrough, upstream: { probeIntervalMs: 50 } });
}
