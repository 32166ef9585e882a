/**
 * Why a probe of an upstream failed, in words an operator acts on: the cause
 * (unknown host, refused, TLS, HTTP status, not the service) and a hint (what
 * to check in UPSTREAM_URLS). Read from the ProxyError the probe ended with:
 * its kind, the upstream's HTTP status when an answer arrived, and the code of
 * the network error beneath it.
 */
import type { ProxyError } from '../errors/catalog.js';
import { PROBE_PATH } from './prober.js';

export interface Diagnosis {
  /** The URL probed (credentials never shown). */
  probed: string;
  cause: string;
  hint: string;
}

function codeOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 3) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return codeOf((err as { cause?: unknown }).cause, depth + 1);
}

const PREFIX_HINT =
  'wrong path prefix? UPSTREAM_URLS is the base the endpoints sit ' +
  `under: <base>${PROBE_PATH} must answer the height`;
const NOT_SERVICE_HINT = 'is this the Chain Data Query Service? wrong path prefix or port?';

function byStatus(status: number, probed: string, detail: string): Omit<Diagnosis, 'probed'> {
  if (status === 404) return { cause: `HTTP 404 for ${probed}`, hint: PREFIX_HINT };
  if (status === 401 || status === 403)
    return {
      cause: `HTTP ${status}: the upstream refuses this client`,
      hint:
        'UPSTREAM_URLS carries no credentials: allow this proxy at the ' +
        'upstream (by its address), or put an authenticating proxy in between',
    };
  if (status >= 300 && status < 400)
    return { cause: `redirected (HTTP ${status})`, hint: 'use the URL it redirects to (https:// instead of http://?)' };
  if (status >= 500 || status === 408 || status === 429)
    return {
      cause: `the upstream answered HTTP ${status}`,
      hint: 'the service is failing or overloaded; it is probed again every UPSTREAM_PROBE_INTERVAL_MS',
    };
  if (status >= 400) return { cause: `HTTP ${status} for ${probed}`, hint: PREFIX_HINT };
  if (/not JSON|not valid UTF-8|not a JSON object/.test(detail))
    return { cause: `HTTP ${status}, but the answer is not a JSON envelope`, hint: NOT_SERVICE_HINT };
  return { cause: `HTTP ${status}, but the answer has no block height (${detail})`, hint: NOT_SERVICE_HINT };
}

/** The cause and hint of one failed probe of the upstream at `base` (its shown URL). */
export function diagnose(base: string, err: ProxyError): Diagnosis {
  const probed = `${base}${PROBE_PATH}`;
  const u = new URL(base);
  const host = u.hostname;
  const hostPort = u.host.includes(':') ? u.host : `${u.host}:${u.protocol === 'https:' ? 443 : 80}`;
  const code = codeOf(err.cause);
  const detail = err.detail ?? err.message;
  const d = (cause: string, hint: string): Diagnosis => ({ probed, cause, hint });
  if (err.upstreamStatus !== null) return { probed, ...byStatus(err.upstreamStatus, probed, detail) };
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME')
    return d(`DNS: unknown host ${host}`, 'check the host name in UPSTREAM_URLS');
  if (code === 'EAI_AGAIN')
    return d(`DNS: the lookup of ${host} failed for now`, 'is a DNS server reachable from this machine?');
  if (code === 'ECONNREFUSED')
    return d(
      `connection refused by ${hostPort}`,
      'nothing is listening there: wrong port, or the service is not running',
    );
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return d(`no route to ${host}`, 'check the address and the network in between');
  if (detail.startsWith('TLS certificate'))
    return d(detail, "the server's certificate is not trusted here (expired, self-signed, or for another name)");
  if (detail.startsWith('TLS')) return d(detail, 'TLS to a plain-HTTP server? try http:// instead of https://');
  if (code === 'HPE_INVALID_CONSTANT' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') {
    return d(
      `the server did not answer in HTTP (${code})`,
      u.protocol === 'http:' ? 'plain HTTP to a TLS server? try https:// instead of http://' : NOT_SERVICE_HINT,
    );
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return d(
      `no connection to ${hostPort} within UPSTREAM_CONNECT_TIMEOUT_MS`,
      'a firewall dropping packets, or a wrong address',
    );
  if (err.kind === 'UPSTREAM_TIMEOUT')
    return d(`no answer in time (${detail})`, 'the service is slow or hung (UPSTREAM_TIMEOUT_MS)');
  return d(`${err.kind}: ${detail}`, NOT_SERVICE_HINT);
}

/** One line: the URL probed, the cause, the hint. */
export function diagnosisLine(d: Diagnosis): string {
  return `GET ${d.probed} failed: ${d.cause}. Hint: ${d.hint}${/[.?!]$/.test(d.hint) ? '' : '.'}`;
}
