/**
 * Starts a real proxy (port 0) for integration tests, with the defaults of
 * src/config/defaults.ts and test-friendly overrides (quiet logs, no probing
 * surprises, no rate limit unless asked).
 */
import { pino } from 'pino';
import { startProxy, type ProxyHandle, type ProxyOptions } from '../../src/app.js';
import { defaultConfig } from '../../src/config/defaults.js';
import type { Config } from '../../src/config/types.js';

export type ConfigPatch = Partial<Omit<Config, 'limits' | 'upstream' | 'redis' | 'rateLimit' | 'simulator'>> & {
  limits?: Partial<Config['limits']>;
  upstream?: Partial<Config['upstream']>;
  redis?: Partial<Config['redis']>;
  rateLimit?: Partial<Config['rateLimit']>;
};

export function testConfig(upstreamUrls: string[], patch: ConfigPatch = {}): Config {
  const base = defaultConfig();
  return {
    ...base,
    ...patch,
    port: 0,
    host: '127.0.0.1',
    upstreamUrls,
    publicBaseUrl: patch.publicBaseUrl ?? 'https://api.example.test',
    logLevel: patch.logLevel ?? 'silent',
    // Tests read counters right after requests: no cached rendering unless asked.
    metricsCacheMs: patch.metricsCacheMs ?? 0,
    limits: { ...base.limits, ...patch.limits },
    upstream: { ...base.upstream, probeIntervalMs: 60_000, probeDenseMs: 0, ...patch.upstream },
    // Redis's command deadline is 100 ms in service; a test that measures no Redis failure gets one a
    // loaded machine meets (a late SET NX would make a replica lead a fetch the fleet already leads).
    redis: { ...base.redis, commandTimeoutMs: 1000, ...patch.redis },
    rateLimit: { ...base.rateLimit, enabled: false, ...patch.rateLimit },
    policies: { ...base.policies, ...patch.policies },
    // Off unless asked: it adds upstream requests on every head, which tests counting them do not expect.
    refreshAhead: patch.refreshAhead ?? { maxKeys: 0 },
    // The head rule unless asked: precise invalidation reads every block (upstream requests tests count).
    invalidation: patch.invalidation ?? { ...base.invalidation, mode: 'head' },
  };
}

export async function startTestProxy(
  upstreamUrls: string[],
  patch: ConfigPatch = {},
  clock?: () => number,
  opts: Pick<ProxyOptions, 'upstreamIsSimulator'> = {},
): Promise<ProxyHandle> {
  const config = testConfig(upstreamUrls, patch);
  return startProxy(config, { logger: pino({ level: config.logLevel }), ...(clock ? { clock } : {}), ...opts });
}
