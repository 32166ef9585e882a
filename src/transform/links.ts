/**
 * Paging links. The upstream's `data.next` / `data.previous` (only those two
 * keys, only directly inside the top-level `data` object) are rewritten to
 * `${publicBaseUrl}/${endpointPath}?${the link's own query, byte for byte}`.
 *
 * The upstream advertises another host than the one it is reached on
 * (`http://data.nebulas.io/tx/list?page=2&page_size=2`) and its base may carry a
 * path prefix, so the link's host and path are never trusted: whether its
 * pathname ends with the endpoint path or not (garbage, relative, another
 * endpoint), the result is the public URL of *this* endpoint plus the link's
 * query, so no foreign host can ever reach a client. `null` (and any other
 * non-string value) stays as is. Links are never built from request headers.
 * A `next` link to a page past the highest page a request may ask (MAX_PAGE)
 * becomes `null`: the proxy would refuse it. Everything else in the body keeps
 * its exact bytes.
 */
import { MAX_PAGE } from '../endpoints/params.js';
import { forEachMember, keyIs, root, splice, stringAt, type Range } from './json-scan.js';

const NULL = Buffer.from('null');

/** Whether a link's query asks a page past MAX_PAGE (a request the proxy refuses). */
function pastPageLimit(query: string): boolean {
  const page = new URLSearchParams(query).get('page');
  return page !== null && /^\d+$/.test(page) && Number(page) > MAX_PAGE;
}

/** The raw query of a link (between the first `?` and any `#`), or '' when it has none. */
export function linkQuery(link: string): string {
  const q = link.indexOf('?');
  if (q < 0) return '';
  const hash = link.indexOf('#', q + 1);
  return hash < 0 ? link.slice(q + 1) : link.slice(q + 1, hash);
}

/** The public URL of `endpointPath` carrying the query of `link`. */
function publicLink(link: string, endpointPath: string, publicBaseUrl: string): string {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const path = endpointPath.replace(/^\/+/, '');
  const query = linkQuery(link);
  return query === '' ? `${base}/${path}` : `${base}/${path}?${query}`;
}

export function rewriteLinks(body: Buffer, endpointPath: string, publicBaseUrl: string): Buffer {
  const top = root(body);
  if (top === null || body[top.start] !== 0x7b) return body;
  const edits: { range: Range; bytes: Buffer }[] = [];
  forEachMember(body, top.start, (ks, ke, data) => {
    if (!keyIs(body, ks, ke, 'data') || body[data.start] !== 0x7b) return;
    forEachMember(body, data.start, (lks, lke, value) => {
      if (!keyIs(body, lks, lke, 'next') && !keyIs(body, lks, lke, 'previous')) return;
      const link = stringAt(body, value);
      if (link === null) return;
      if (keyIs(body, lks, lke, 'next') && pastPageLimit(linkQuery(link))) {
        edits.push({ range: value, bytes: NULL });
        return;
      }
      const rewritten = publicLink(link, endpointPath, publicBaseUrl);
      if (rewritten !== link) edits.push({ range: value, bytes: Buffer.from(JSON.stringify(rewritten)) });
    });
  });
  return edits.length === 0 ? body : splice(body, edits);
}
