/**
 * `chainproxy --check`: the configuration was already validated (an invalid
 * one exits 2 before this runs); probe every upstream once (GET
 * <base>/block/max, exactly the health probe), Redis once (connect, PING)
 * and connect to each PASSTHROUGH backend (src/startup/check-passthrough.ts),
 * print one line per thing checked and exit 0 when all is well, 2 otherwise.
 * Nothing is bound, nothing is served. As nginx -t, varnishd -C.
 */
import { withoutCredentials } from '../common/shown-url.js';
import type { Config } from '../config/types.js';
import { toProxyError } from '../errors/catalog.js';
import { noopMetrics } from '../metrics/types.js';
import { closeRedis, createRedis, waitReady } from '../redis/client.js';
import { diagnose, diagnosisLine } from '../upstream/diagnose.js';
import { parseHeight, PROBE } from '../upstream/prober.js';
import { Upstream } from '../upstream/upstream.js';
import { defaultBaseUrlWarning } from './shared-namespace.js';
import { checkPassthrough, type CheckVerdict } from './check-passthrough.js';

/** Redis gets this long to connect and answer PING. */
const REDIS_WAIT_MS = 3000;

async function checkUpstream(url: string, config: Config): Promise<CheckVerdict> {
  const u = new Upstream({ name: 'check', url, config: config.upstream, metrics: noopMetrics });
  const started = performance.now();
  try {
    const res = await u.run(PROBE);
    const ms = Math.round(performance.now() - started);
    return { ok: true, line: `ok     upstream ${u.url}: head ${parseHeight(res.json) ?? '?'} (${ms} ms)` };
  } catch (e) {
    return { ok: false, line: `FAILED upstream ${u.url}: ${diagnosisLine(diagnose(u.url, toProxyError(e)))}` };
  } finally {
    await u.close();
  }
}

async function checkRedis(url: string, config: Config): Promise<CheckVerdict> {
  const shown = withoutCredentials(url);
  let last: Error | null = null;
  const client = createRedis(url, config.redis, { onError: (err) => (last = err) });
  const started = performance.now();
  try {
    if (!(await waitReady(client, REDIS_WAIT_MS))) {
      const why = last === null ? 'no answer' : (last as Error).message;
      return {
        ok: false,
        line:
          `FAILED redis ${shown}: not ready within ${REDIS_WAIT_MS} ms (${why}). ` +
          'Hint: check REDIS_URL (host, port, password, TLS: rediss://).',
      };
    }
    await client.ping();
    return { ok: true, line: `ok     redis ${shown}: PING answered (${Math.round(performance.now() - started)} ms)` };
  } catch (e) {
    return { ok: false, line: `FAILED redis ${shown}: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    await closeRedis(client);
  }
}

/** Runs the checks, writing one line each to `out`; returns the exit code (0 all good, 2 otherwise). */
export async function runCheck(config: Config, out: (line: string) => void): Promise<number> {
  out('ok     configuration: valid');
  const checks: Array<Promise<CheckVerdict>> = config.upstreamUrls.map((url) => checkUpstream(url, config));
  if (config.upstreamUrls.length === 0)
    out('ok     upstream: none configured (the built-in chain simulator would be started)');
  if (config.redisUrl !== null) checks.push(checkRedis(config.redisUrl, config));
  else out('ok     redis: none configured (memory tier only)');
  const connectMs = Math.min(config.upstream.connectTimeoutMs, config.passthrough.timeoutMs);
  for (const route of config.passthrough.routes) checks.push(checkPassthrough(route, connectMs));
  // A warning, not a failure: a fleet of one, or replicas on one port behind a balancer, may keep the default.
  const unshared = defaultBaseUrlWarning(config);
  if (unshared !== null) out(`warn   fleet: ${unshared}`);
  const verdicts = await Promise.all(checks);
  for (const v of verdicts) out(v.line);
  const failed = verdicts.filter((v) => !v.ok).length;
  out(failed === 0 ? 'check passed' : `check failed: ${failed} of ${verdicts.length} unreachable or wrong`);
  return failed === 0 ? 0 : 2;
}
