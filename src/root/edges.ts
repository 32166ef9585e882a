/**
 * The edges builder: aggregation pages, the rate limiter, the envelope writer,
 * the epilogue, the pre-router hit path, the operator gates and readiness.
 */
import { ClientAddress } from '../http/client-address.js';
import { OperatorAccess } from '../http/admin-gate.js';
import { EnvelopeWriter } from '../http/envelope-writer.js';
import { Epilogue } from '../http/epilogue.js';
import { FastHits } from '../http/fast-hit.js';
import { readinessRule, readinessVerdict, Serving, whileServing, type ReadinessVerdict } from '../http/readiness.js';
import { compilePages } from '../page-table/plan.js';
import { PAGES } from '../page-table/defaults.js';
import { Pages } from '../pages/engine.js';
import { registerPageMetrics, type PageMetrics } from '../pages/metrics.js';
import { createRateLimitGate, type RateLimitGate } from '../ratelimit/index.js';
import type { Basics } from './basics.js';
import type { CacheStages } from './cache.js';
import type { ChainStages } from './chain.js';
import type { FleetStages } from './fleet.js';
import type { PipelineStages } from './pipeline.js';
import type { UpstreamStages } from './upstreams.js';

export interface EdgeStages {
  pageMetrics: PageMetrics;
  pages: Pages;
  /** null when rate limiting is off. */
  gate: RateLimitGate | null;
  writer: EnvelopeWriter;
  address: ClientAddress;
  epilogue: Epilogue;
  /** null when every request must go through the router (ACCESS_LOG=all). */
  fast: FastHits | null;
  operators: OperatorAccess;
  serving: Serving;
  readiness: () => ReadinessVerdict;
}

export function buildEdges(
  { config, logger, clock, prom }: Basics,
  { catalogue, tracker }: ChainStages,
  { memory }: CacheStages,
  { fleet }: FleetStages,
  { pool }: UpstreamStages,
  { resolver, purge }: PipelineStages,
  upstreamIsSimulator: boolean,
): EdgeStages {
  const compiledPages = compilePages(PAGES, config.pages, catalogue);
  const pageMetrics = registerPageMetrics(prom.registry, [...compiledPages.keys()]);
  const pages = new Pages({
    pages: compiledPages,
    resolver,
    chain: tracker,
    limits: config.limits,
    clock,
    logger,
    metrics: pageMetrics,
    // Composed pages are entries of the memory tier, judged like the resolver's.
    memory,
    tags: purge.judge,
  });
  const { metrics, registry } = prom;
  const gate = createRateLimitGate(config, { redis: fleet?.client ?? null, metrics, registry, clock });
  const writer = new EnvelopeWriter({ upstreamIsSimulator });
  const address = new ClientAddress(config.trustProxy);
  const epilogue = new Epilogue({
    address,
    accessLog: config.accessLog,
    logger,
    chain: tracker,
    writer,
    gate,
    metrics,
    pages: pageMetrics,
  });
  const fast = config.accessLog === 'all' ? null : new FastHits({ resolver, clock, epilogue });
  const operators = new OperatorAccess({
    adminAllow: config.adminAllow,
    purgeAllow: config.purgeAllow,
    adminHosts: config.adminHosts,
  });
  // The rule reads the policies as last reloaded (the longest stale-if-error).
  const rule = () =>
    readinessRule(config.upstream.probeIntervalMs, Math.max(0, ...catalogue.all().map((e) => e.policy.sieMs)));
  const serving = new Serving();
  const readiness = () => whileServing(serving, readinessVerdict(pool.goodAnswers(), memory.entries, rule()));
  return { pageMetrics, pages, gate, writer, address, epilogue, fast, operators, serving, readiness };
}
