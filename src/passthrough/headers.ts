/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1): Connection and every header it
 * names, Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade and the Proxy-*
 * family describe one connection and are never forwarded. Set-Cookie from a
 * backend is dropped too: a read-only public front door sets no cookies. A
 * backend's own X-Cache gives way to the proxy's `BYPASS` (a streamed answer
 * is never cached), and its CORS headers to the proxy's one CORS policy.
 */
import { CORS_HEADERS } from '../http/header-block.js';

type Headers = Record<string, string | string[] | number | undefined>;

const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Lower-cased header names listed in Connection (`Connection: close, X-Foo`). */
function connectionTokens(value: Headers[string]): Set<string> {
  const out = new Set<string>();
  const values = Array.isArray(value) ? value : value === undefined ? [] : [String(value)];
  for (const v of values) for (const t of v.split(',')) if (t.trim() !== '') out.add(t.trim().toLowerCase());
  return out;
}

function isHopByHop(name: string, named: ReadonlySet<string>): boolean {
  const n = name.toLowerCase();
  return HOP_BY_HOP.has(n) || n.startsWith('proxy-') || named.has(n);
}

/** A copy of `headers` without the hop-by-hop ones (and without `drop`, or the CORS ones when `cors`). */
function endToEnd<H extends Headers>(headers: H, drop: ReadonlySet<string> = new Set(), cors = false): H {
  const named = connectionTokens(headers['connection'] ?? headers['Connection']);
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (isHopByHop(name, named) || drop.has(n) || (cors && n.startsWith('access-control-'))) continue;
    out[name] = value;
  }
  return out as H;
}

const RESPONSE_DROP: ReadonlySet<string> = new Set(['set-cookie', 'x-cache']);

/** Request headers sent to the backend. */
export function requestHeadersFor<H extends Headers>(headers: H): H {
  return endToEnd(headers);
}

/** Response headers relayed to the client. */
export function responseHeadersFor<H extends Headers>(headers: H): H {
  const out: Headers = endToEnd(headers, RESPONSE_DROP, true);
  Object.assign(out, CORS_HEADERS);
  out['x-cache'] = 'BYPASS';
  return out as H;
}
