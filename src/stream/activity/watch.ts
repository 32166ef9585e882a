/**
 * What one /stream/activity request watches: every `address=` and `contract=`
 * value (Nebulas addresses, duplicates counted once), checked before the
 * stream opens. Both name the same kind of entity: a contract is an address.
 */
import { invalidMessage, P } from '../../endpoints/params.js';
import { ProxyError } from '../../errors/catalog.js';

/** Address parsing needs no limits. */
const NO_LIMITS = { maxPageSize: 0, maxDays: 0 };

/** The distinct entities watched, in request order, or a ProxyError (400) naming the parameter. */
export function parseWatch(rawUrl: string, max: number): string[] | ProxyError {
  const q = rawUrl.indexOf('?');
  const seen = new Set<string>();
  let last = 'address';
  if (q >= 0) {
    for (const part of rawUrl.slice(q + 1).split('&')) {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      if (name !== 'address' && name !== 'contract') continue;
      let raw: string;
      try {
        raw = decodeURIComponent((eq < 0 ? '' : part.slice(eq + 1)).replace(/\+/g, ' '));
      } catch {
        return new ProxyError('BAD_PARAMETER', `invalid parameter ${name}: malformed percent-encoding`);
      }
      const r = P.address.parse(raw, NO_LIMITS);
      if (!r.ok) return new ProxyError('BAD_PARAMETER', invalidMessage(name, r.expected, raw));
      seen.add(r.value);
      last = name;
      if (seen.size > max)
        return new ProxyError(
          'BAD_PARAMETER',
          `invalid parameter ${name}: at most ${max} addresses and contracts per stream (STREAM_ACTIVITY_MAX_WATCH)`,
        );
    }
  }
  if (seen.size === 0)
    return new ProxyError(
      'MISSING_PARAMETER',
      `missing parameter ${last}: name at least one address or contract to watch`,
    );
  return [...seen];
}
