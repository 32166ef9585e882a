/**
 * Topics of the settings in fields.ts, in --help order. A setting belongs to
 * the group naming it, else to the group whose namespace its name starts
 * with; `namespace` prefixes are also the families lookalike.ts guards
 * (UPSTREAM_FOO is refused as a misspelt upstream setting).
 */
export interface SettingGroup {
  title: string;
  /** Variable names of this topic outside the namespaces. */
  names: readonly string[];
  /** Prefixes owned by this topic: every variable starting with one is a setting of it or a mistake. */
  namespaces: readonly string[];
}

export const GROUPS: readonly SettingGroup[] = [
  {
    title: 'Server',
    names: [
      'PORT',
      'HOST',
      'PUBLIC_BASE_URL',
      'CONFIG_FILE',
      'WORKERS',
      'WORKERS_LEND_WAIT_MS',
      'SHUTDOWN_TIMEOUT_MS',
      'DRAIN_DELAY_MS',
      'MAX_CONNECTIONS',
      'MAX_CONNECTIONS_PER_CLIENT',
      'HEADERS_TIMEOUT_MS',
      'KEEP_ALIVE_TIMEOUT_MS',
    ],
    namespaces: [],
  },
  { title: 'Upstream', names: ['UPSTREAM_URLS'], namespaces: ['UPSTREAM_'] },
  { title: 'Built-in simulator (without UPSTREAM_URLS)', names: [], namespaces: ['SIM_'] },
  { title: 'Cache', names: ['CACHE_MAX_BYTES'], namespaces: ['CACHE_', 'REFRESH_AHEAD_', 'INVALIDATION_'] },
  { title: 'Redis (shared tier, fleet)', names: [], namespaces: ['REDIS_'] },
  { title: 'Requests', names: ['REQUEST_TIMEOUT_MS', 'MAX_PAGE_SIZE', 'MAX_DAYS', 'MAX_BATCH_ITEMS'], namespaces: [] },
  { title: 'Clients, rate limits and credits', names: ['TRUST_PROXY'], namespaces: ['RATE_LIMIT_', 'CREDITS_'] },
  { title: 'Head stream (/stream/heads)', names: ['MAX_STREAMS'], namespaces: ['STREAM_'] },
  { title: 'Passthrough (legacy paths)', names: ['PASSTHROUGH'], namespaces: ['PASSTHROUGH_'] },
  {
    title: 'Operators and logs',
    names: ['ADMIN_ALLOW', 'PURGE_ALLOW', 'ADMIN_HOSTS', 'METRICS_CACHE_MS', 'LOG_LEVEL', 'ACCESS_LOG'],
    namespaces: [],
  },
];

/** Every namespace prefix, longest first. */
export const NAMESPACES: readonly string[] = GROUPS.flatMap((g) => g.namespaces).sort((a, b) => b.length - a.length);

/** The group of a variable name, or null when no group claims it. */
export function groupOf(name: string): SettingGroup | null {
  return (
    GROUPS.find((g) => g.names.includes(name)) ??
    GROUPS.find((g) => g.namespaces.some((p) => name.startsWith(p))) ??
    null
  );
}
