/** The start-up line for humans: where the API and the status page are, and what the upstream is. */
import { withoutCredentials } from '../common/shown-url.js';
import type { Config } from '../config/types.js';
import { VERSION } from '../config/version.js';

/**
 * `base`: the API's base URL as clients reach it (PUBLIC_BASE_URL, or the
 * listening address when PORT=0). `simulated`: the upstream is the built-in simulator.
 * `answered`: some upstream passed its first probe (else the line says none did,
 * instead of inviting a request that would fail).
 */
export function startupLine(config: Config, base: string, simulated: boolean, answered: boolean): string {
  const upstream = simulated
    ? 'the built-in chain simulator (simulated data; set UPSTREAM_URLS for a real chain)'
    : config.upstreamUrls.map(withoutCredentials).join(', ');
  const tryIt = answered
    ? `(try ${base}/block/max)`
    : '(but no upstream answered its first probe: see the lines above)';
  return (
    `chainproxy ${VERSION} is serving the API at ${base} ${tryIt}; ` +
    `status page for operators (ADMIN_ALLOW: ${config.adminAllow.join(',') || 'nobody'}) at ${base}/dashboard; ` +
    `upstream: ${upstream}\n`
  );
}
