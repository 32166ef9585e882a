/**
 * Environment variables that look like a setting but are not one (a typo such
 * as UPSTREAM_URL, REDIS_URI, CACHE_MAX_BYTE) would silently leave the real
 * setting at its default, so start-up refuses them, naming the setting each
 * resembles. The rule, case-insensitive:
 * - within 2 edits (insert, delete, substitute, swap) of a setting's name,
 *   1 edit for names shorter than 6 characters (HOME is not HOST);
 * - or a setting family's prefix (UPSTREAM_, REDIS_ ...: NAMESPACES in
 *   groups.ts) followed by a tail that is not a setting.
 * Never flagged: empty values (they count as unset), NODE_* and npm_*
 * (runtime and package manager), and the service links Kubernetes and Docker
 * inject for every service (REDIS_PORT, REDIS_SERVICE_HOST, REDIS_PORT_6379_TCP...).
 */
import { NAMESPACES } from './groups.js';

/** Names that are not settings but must never be flagged. */
const IGNORED: readonly RegExp[] = [
  /^NODE_/i,
  /^npm_/i,
  // Kubernetes service links: <SVC>_SERVICE_HOST, <SVC>_SERVICE_PORT[_<NAME>],
  // <SVC>_PORT[_<n>_<PROTO>[_PROTO|_PORT|_ADDR]].
  /_SERVICE_(HOST|PORT)(_\w+)?$/,
  /_PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?$/,
  // Docker links: <ALIAS>_NAME, <ALIAS>_ENV_<VAR>.
  /^[A-Z0-9]+_(NAME|ENV_\w+)$/,
];

/** Optimal string alignment distance (Levenshtein plus adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Variables other software reads whose value goes into a setting here: what to do instead. */
const INSTEAD: ReadonlyMap<string, string> = new Map([
  ['REDIS_PASSWORD', 'the password goes in REDIS_URL: redis://:PASSWORD@host:6379 (or redis://USER:PASSWORD@host)'],
  ['REDIS_USERNAME', 'the user name goes in REDIS_URL: redis://USER:PASSWORD@host:6379'],
  ['REDIS_HOST', 'the host goes in REDIS_URL: redis://host:6379'],
]);

const allowedEdits = (setting: string): number => (setting.length < 6 ? 1 : 2);

type Resemblance = { kind: 'near'; setting: string } | { kind: 'family'; prefix: string; settings: readonly string[] };

/** What `name` resembles, or null. `names`: every setting's variable name. */
function resembles(name: string, names: readonly string[]): Resemblance | null {
  const upper = name.toUpperCase();
  if (names.includes(name) || IGNORED.some((re) => re.test(name))) return null;
  let best: { name: string; d: number } | null = null;
  for (const s of names) {
    const d = editDistance(upper, s);
    if (d <= allowedEdits(s) && (best === null || d < best.d)) best = { name: s, d };
  }
  if (best !== null) return { kind: 'near', setting: best.name };
  const prefix = NAMESPACES.find((p) => upper.startsWith(p) && upper.length > p.length);
  if (prefix === undefined) return null;
  return { kind: 'family', prefix, settings: names.filter((s) => s.startsWith(prefix)) };
}

/** One message per lookalike variable in `env`, in the style of the other configuration errors. */
export function lookalikeErrors(env: Record<string, string | undefined>, names: readonly string[]): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim() === '') continue;
    const r = resembles(name, names);
    if (r === null) continue;
    const instead = INSTEAD.get(name.toUpperCase());
    if (instead !== undefined) {
      errors.push(`${name}: expected no such variable, got one: ${instead} (then unset ${name})`);
      continue;
    }
    errors.push(
      r.kind === 'near'
        ? `${name}: expected a known setting, got an unknown variable that ` +
            `resembles ${r.setting} (rename it to ${r.setting}, or unset it)`
        : `${name}: expected one of the ${r.prefix}* settings ` +
            `(${r.settings.join(', ')}), got an unknown variable (rename it, or unset it)`,
    );
  }
  return errors;
}

/**
 * The known CONFIG_FILE key an unknown one most likely means, or null. The
 * rule: an environment variable's name written as a key (UPSTREAM_URLS:
 * upstreamUrls); a key within the edits above of a known key, case-insensitive,
 * dotted keys whole (upstreamUrl: upstreamUrls, upstrem: upstream); the one key
 * of its section that contains it (limits.pageSize: limits.maxPageSize); a
 * top-level key that is a setting of exactly one section (connectTimeoutMs:
 * upstream.connectTimeoutMs). `keys`: every known key, dotted, sections and
 * file-only keys included; `byEnv`: variable name to key.
 */
export function fileKeyLookalike(
  key: string,
  keys: readonly string[],
  byEnv: ReadonlyMap<string, string>,
): string | null {
  const fromEnv = byEnv.get(key.toUpperCase());
  if (fromEnv !== undefined) return fromEnv;
  const lower = key.toLowerCase();
  let best: { key: string; d: number } | null = null;
  for (const k of keys) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= allowedEdits(k) && (best === null || d < best.d)) best = { key: k, d };
  }
  if (best !== null) return best.key;
  const dot = key.lastIndexOf('.');
  const section = dot < 0 ? '' : key.slice(0, dot + 1);
  const tail = (dot < 0 ? key : key.slice(dot + 1)).toLowerCase();
  if (tail.length < 4) return null;
  const one = (list: readonly string[]): string | null => (list.length === 1 ? list[0]! : null);
  if (section !== '')
    return one(
      keys.filter(
        (k) =>
          k.startsWith(section) &&
          !k.slice(section.length).includes('.') &&
          k.slice(section.length).toLowerCase().includes(tail),
      ),
    );
  return one(keys.filter((k) => k.slice(k.lastIndexOf('.') + 1).toLowerCase() === tail && k.includes('.')));
}
