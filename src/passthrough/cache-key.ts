/**
 * The cache key of a passthrough request and the path it is forwarded with.
 *
 * Key: the request path as sent (it starts with its route's prefix, so it
 * never meets an API key, which has no leading slash) and its query in the
 * client's order, bytes unchanged, minus the ignored parameters
 * (PASSTHROUGH_IGNORE_PARAMS). The order is kept: a backend may read
 * repeated or ordered parameters, and two spellings of one request cost one
 * more entry, never a wrong answer. The same query, the ignored parameters
 * dropped, is what the backend receives.
 */

/** `query` (without `?`) without the parameters named in `ignore` (names compared decoded). */
export function withoutParams(query: string, ignore: ReadonlySet<string>): string {
  if (ignore.size === 0 || query === '') return query;
  const kept: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let name = rawName;
    if (rawName.includes('%') || rawName.includes('+'))
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // a malformed escape: compared as written
      }
    if (!ignore.has(name)) kept.push(part);
  }
  return kept.join('&');
}

/** A path the cache path leaves to the streaming proxy: dot segments, encoded dots or backslashes. */
export function unusualPath(path: string): boolean {
  return /(^|\/)\.\.?(\/|$)/.test(path) || /%2e|%2f|%5c|\\/i.test(path);
}

/** Path and query of a URL: [path, query without `?`]. */
export function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

/** The cache key of `path` with `query` (already without the ignored parameters). */
export function passKey(path: string, query: string): string {
  return query === '' ? path : `${path}?${query}`;
}
