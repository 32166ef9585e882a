/**
 * The reload builder: the running configuration and the swap points a reload
 * (SIGHUP) goes through, each changing a built stage in place
 * (src/config/reload-classes.ts says which settings).
 */
import { PageTableSwap } from '../pages/table-swap.js';
import { LiveSettings } from '../startup/live-settings.js';
import type { Basics } from './basics.js';
import type { ChainStages } from './chain.js';
import type { EdgeStages } from './edges.js';
import type { PipelineStages } from './pipeline.js';
import type { UpstreamStages } from './upstreams.js';

export function buildReload(
  { config, logger, prom }: Basics,
  { catalogue }: ChainStages,
  { pool }: UpstreamStages,
  { purge, passthrough }: PipelineStages,
  { gate, fast, operators, pages, pageMetrics }: EdgeStages,
): LiveSettings {
  const live = new LiveSettings(config, prom.registry);
  live.onChange((next) => (logger.level = next.logLevel));
  // The pool reads these of its settings object at each request (src/upstream/pool.ts).
  const poolSettings = config.upstream;
  live.onChange(({ upstream: u }) => {
    poolSettings.maxAttempts = u.maxAttempts;
    poolSettings.hedgeAfterMs = u.hedgeAfterMs;
    poolSettings.hedgeQuantile = u.hedgeQuantile;
    poolSettings.maxLagBlocks = u.maxLagBlocks;
  });
  live.onChange((next) => {
    const replaced = pool.replaceUrls(next.upstreamUrls);
    if (replaced.length > 0) logger.info({ upstreams: replaced }, 'reload: upstreams replaced under the same names');
  });
  live.onChange((n) => operators.set({ adminAllow: n.adminAllow, purgeAllow: n.purgeAllow, adminHosts: n.adminHosts }));
  if (gate !== null)
    live.onChange((next) => {
      gate.limiter.reconfigure({
        config: next.rateLimit,
        allow: next.rateLimitAllow,
        apiKeys: next.apiKeys,
        missBudget: next.missBudget,
      });
      gate.prices.replace(next.credits, next.creditCosts);
    });
  // Passthrough: the table of prefixes (added, removed, re-pointed), each one's cache policy and ignored
  // parameters, the timeout and the body bound; remembered fast hits are routed again.
  live.onChange((next) => {
    if (passthrough.reconfigure(next.passthrough)) fast?.forget();
  });
  // Policies: the endpoint definitions' policy objects rewritten (every reader uses the new one from its next use,
  // the readiness rule too), then the purge marks' horizon.
  live.onChange((next) => {
    catalogue.setPolicies(next.policies);
    purge.policiesChanged();
  });
  // Pages: the table the page route and the engine look pages up in (src/pages/table-swap.ts).
  const pageSwap = new PageTableSwap(config.pages, { pages, metrics: pageMetrics, catalogue });
  live.onChange((next) => pageSwap.apply(next.pages));
  return live;
}
