/**
 * Purge tags of passthrough answers: `prefix:<path>` for every leading path
 * of the entry's key (`/explorer/block/list?…` carries `prefix:/explorer`,
 * `prefix:/explorer/block` and `prefix:/explorer/block/list`), so a purge
 * names a configured prefix or any path under it. Nothing is indexed: the
 * purge marks judge entries by these tags (src/purge/marks.ts).
 */

export const PREFIX_TAG = 'prefix:';

/** Path segments an entry is tagged with at most. */
const MAX_SEGMENTS = 8;

/** A passthrough key: its path has a leading slash (an API key never has). */
export const isPassKey = (key: string): boolean => key.startsWith('/');

/** The tags of the passthrough entry of `key`. */
export function passTags(key: string): readonly string[] {
  const q = key.indexOf('?');
  const path = q < 0 ? key : key.slice(0, q);
  const out: string[] = [];
  let at = 0;
  while (out.length < MAX_SEGMENTS) {
    const next = path.indexOf('/', at + 1);
    out.push(PREFIX_TAG + (next < 0 ? path : path.slice(0, next)));
    if (next < 0) break;
    at = next;
  }
  return out;
}

/** The tag a purge's `tag=prefix:/path` names (trailing slashes dropped), or null when it is not one. */
export function prefixTagOf(raw: string): string | null {
  if (!raw.startsWith(PREFIX_TAG)) return null;
  const path = raw.slice(PREFIX_TAG.length).replace(/\/+$/, '');
  return /^(\/[A-Za-z0-9._~%!$&'()*+,;=:@-]+)+$/.test(path) ? PREFIX_TAG + path : null;
}
