/** The start-up line for humans: where the API and the status page are, and what the upstream is. */
import type { Config } from '../config/types.js';
import { VERSION } from '../config/version.js';

/**
 * `base`: the API's base URL as clients reach it (PUBLIC_BASE_URL, or the
 * listening address when PORT=0). `simulated`: the upstream is the built-in simulator.
 */
export function startupLine(config: Config, base: string, simulated: boolean): string {
  const upstream = simulated
    ? 'the built-in chain simulator (simulated data; set UPSTREAM_URLS for a real chain)'
    : config.upstreamUrls.join(', ');
  return (
    `chainproxy ${VERSION} is serving the API at ${base} (try ${base}/block/max); ` +
    `status page for operators (ADMIN_ALLOW: ${config.adminAllow.join(',') || 'nobody'}) at ${base}/dashboard; ` +
    `upstream: ${upstream}\n`
  );
}
