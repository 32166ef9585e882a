/**
 * Readiness: whether this replica can serve. Ready when either
 * - an upstream within UPSTREAM_MAX_LAG_BLOCKS of the best head gave a good
 *   answer (a passing probe or an accepted request) within the last
 *   `windowMs` (three probe intervals): one failed probe, or an upstream that
 *   fails some requests while retries still answer clients, changes nothing;
 * - or the cache can serve within policy: the memory tier holds entries and
 *   some upstream answered well within the longest stale-if-error window, so
 *   what it fetched then is still served when the upstream fails.
 * The /readyz answer, /status and the status page all read this one verdict.
 */
/** What readiness needs of one upstream. */
export interface UpstreamAnswers {
  /** Ms since its last good answer; null before one. */
  lastGoodAgoMs: number | null;
  /** Further behind the best head than UPSTREAM_MAX_LAG_BLOCKS. */
  lagging: boolean;
}

export interface ReadinessRule {
  /** An up-to-date upstream's good answer younger than this: ready. */
  windowMs: number;
  /** With cached entries, any upstream's good answer younger than this: ready. */
  cacheWindowMs: number;
}

export interface ReadinessVerdict {
  ready: boolean;
  /** 'upstream', 'cache', or why not. */
  reason: string;
  /** Ms since the youngest good upstream answer; null before one. */
  lastGoodAgoMs: number | null;
}

/** The rule for a probe interval and the longest stale-if-error window of the catalogue. */
export function readinessRule(probeIntervalMs: number, longestSieMs: number): ReadinessRule {
  const windowMs = 3 * probeIntervalMs;
  return { windowMs, cacheWindowMs: Math.max(windowMs, longestSieMs) };
}

export function readinessVerdict(
  upstreams: readonly UpstreamAnswers[],
  cachedEntries: number,
  rule: ReadinessRule,
): ReadinessVerdict {
  let youngest: number | null = null;
  for (const u of upstreams) {
    const ago = u.lastGoodAgoMs;
    if (ago === null) continue;
    if (youngest === null || ago < youngest) youngest = ago;
  }
  const upToDate = upstreams.some((u) => u.lastGoodAgoMs !== null && u.lastGoodAgoMs <= rule.windowMs && !u.lagging);
  if (upToDate) return { ready: true, reason: 'upstream', lastGoodAgoMs: youngest };
  if (cachedEntries > 0 && youngest !== null && youngest <= rule.cacheWindowMs)
    return { ready: true, reason: 'cache', lastGoodAgoMs: youngest };
  const seconds = Math.round(rule.windowMs / 100) / 10;
  return {
    ready: false,
    reason: youngest === null ? 'no upstream has answered yet' : `no up-to-date upstream answered within ${seconds} s`,
    lastGoodAgoMs: youngest,
  };
}

/** Whether this process is in its lame duck (after SIGTERM): read by the readiness verdict, set once by the close. */
export class Serving {
  draining = false;
}

/** The verdict while draining: not ready, whatever the upstreams say. */
export function whileServing(serving: Serving, v: ReadinessVerdict): ReadinessVerdict {
  return serving.draining ? { ready: false, reason: 'shutting down', lastGoodAgoMs: v.lastGoodAgoMs } : v;
}
