/**
 * The chain builder: the endpoint catalogue, the sit-outs (benched upstreams),
 * the chain tracker (a refuted head benches its source) and the touched sets.
 * Built first: everything else reads the chain.
 */
import { buildCatalogue, type Catalogue } from '../catalogue/index.js';
import { ChainTracker } from '../chain/tracker.js';
import { TouchedSets } from '../chain/touched.js';
import { registerConsensusMetrics, type ConsensusMetrics } from '../consensus/metrics.js';
import { SitOuts } from '../upstream/sit-out.js';
import type { Basics } from './basics.js';

export interface ChainStages {
  catalogue: Catalogue;
  tracker: ChainTracker;
  /** What each block changed, published on every replica (src/chain/touched.ts). */
  touched: TouchedSets;
  sitOuts: SitOuts;
  /** Upstream names (`u0`, `u1`, ...), the label values of the per-upstream metrics. */
  upstreamNames: string[];
  consensusMetrics: ConsensusMetrics;
}

export function buildChain({ config, logger, clock, prom }: Basics): ChainStages {
  const upstreamNames = config.upstreamUrls.map((_, i) => `u${i}`);
  const consensusMetrics = registerConsensusMetrics(prom.registry, upstreamNames);
  const sitOuts = new SitOuts({
    durationMs: config.upstream.sitOutMs ?? 60_000,
    clock,
    logger,
    onSitOut: consensusMetrics.sitOut,
  });
  const tracker = new ChainTracker({
    ...(config.upstream.headMarginBlocks !== undefined ? { marginBlocks: config.upstream.headMarginBlocks } : {}),
    confirmWindowMs: Math.max(1000, 3 * config.upstream.probeIntervalMs),
    onRefuted: (source, height) => sitOuts.bench(source, 'head', `head ${height} refuted by the other upstreams`),
  });
  const catalogue = buildCatalogue(config.policies);
  return { catalogue, tracker, touched: new TouchedSets(), sitOuts, upstreamNames, consensusMetrics };
}
