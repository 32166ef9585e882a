/**
 * Operations endpoints: liveness, readiness (readiness.ts: this replica can
 * serve), a JSON status page and Prometheus metrics. Never cached, never
 * rate limited. /healthz and /readyz are public (load balancers); /status and
 * /metrics pass the operator gate (admin-gate.ts), and /metrics renders at
 * most once per `metricsCacheMs`.
 */
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../config/version.js';
import type { ChainView } from '../chain/types.js';
import { EDGE_ERRORS, envelopeBody } from '../errors/catalog.js';
import type { UpstreamStatus } from '../upstream/types.js';
import { adminOnly, type AdminGate } from './admin-gate.js';
import { sendEnvelope } from './envelope-writer.js';
import { throttledRender } from './metrics-render.js';
import { HEALTHZ_PATH, METRICS_PATH, READYZ_PATH, STATUS_PATH } from '../catalogue/paths.js';
import type { ReadinessVerdict } from './readiness.js';
import { NO_STORE } from './header-block.js';

export interface OpsDeps {
  /** The one readiness verdict (readiness.ts). */
  readiness(): ReadinessVerdict;
  upstreams(): UpstreamStatus[];
  chain: ChainView;
  cache(): Record<string, unknown>;
  metrics: { contentType: string; render(): Promise<string> } | null;
  startedAt: number;
  /** Who may see /status and /metrics. */
  adminGate: AdminGate;
  /** /metrics renders at most once per this many ms (0: every scrape). */
  metricsCacheMs: number;
  /** Serving the built-in chain simulator (shown in /status for the status page's banner). */
  upstreamIsSimulator: boolean;
  /** Quorum votes and the recent disputes (null: UPSTREAM_QUORUM 1). */
  consensus?: (() => Record<string, unknown> | null) | undefined;
  /** /stream/activity: connections, watched entities, resume history. */
  activity?: (() => object) | undefined;
  /** New heads: probe cadence, probes per block, detection delay (upstream/head-watch.ts). */
  heads?: (() => object) | undefined;
  /** The fleet's members (src/fleet/members.ts); null without Redis. */
  fleet?: (() => object | null) | undefined;
  /** A line per passthrough prefix (src/passthrough/status.ts); null without PASSTHROUGH. */
  passthrough?: (() => object | null) | undefined;
}

const ALIVE_BODY = envelopeBody(0, 'success', { status: 'alive' });
const READY_BODIES: Record<string, Buffer> = {
  upstream: envelopeBody(0, 'success', { status: 'ready', reason: 'upstream' }),
  cache: envelopeBody(0, 'success', { status: 'ready', reason: 'cache' }),
};
const NOT_READY_BODY = envelopeBody(EDGE_ERRORS.NOT_READY.code, EDGE_ERRORS.NOT_READY.msg);

/**
 * Numbers as an operator reads them: integers as they are; others to 2
 * decimals from 1 up (1.4084010000078706 ms → 1.41), to 3 significant digits
 * below 1 (0.8333 → 0.833, 0.000123456 → 0.000123).
 */
export function roundNumber(v: number): number {
  if (Number.isInteger(v) || !Number.isFinite(v)) return v;
  return Math.abs(v) >= 1 ? Math.round(v * 100) / 100 : Number(v.toPrecision(3));
}

function roundedEnvelope(data: unknown): Buffer {
  return Buffer.from(
    JSON.stringify({ code: 0, msg: 'success', data }, (_key, v: unknown) =>
      typeof v === 'number' ? roundNumber(v) : v,
    ),
  );
}

export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  const json = 'application/json; charset=utf-8';
  app.get(HEALTHZ_PATH, (_req, reply) => {
    sendEnvelope(reply, 200, ALIVE_BODY);
  });
  app.get(READYZ_PATH, (_req, reply) => {
    const { ready, reason } = deps.readiness();
    if (ready)
      sendEnvelope(reply, 200, READY_BODIES[reason] ?? envelopeBody(0, 'success', { status: 'ready', reason }));
    else sendEnvelope(reply, EDGE_ERRORS.NOT_READY.status, NOT_READY_BODY, { counted: true });
  });
  const operatorOnly = { onRequest: adminOnly(deps.adminGate) };
  app.get(STATUS_PATH, operatorOnly, (_req, reply) => {
    const verdict = deps.readiness();
    reply
      .header('content-type', json)
      .header('cache-control', NO_STORE)
      .send(
        roundedEnvelope({
          version: VERSION,
          ready: verdict.ready,
          readyReason: verdict.reason,
          lastGoodAnswerAgoMs: verdict.lastGoodAgoMs,
          upstreamIsSimulator: deps.upstreamIsSimulator,
          uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
          chain: { bestHead: deps.chain.bestHead(), finalHeight: deps.chain.finalHeight() },
          upstreams: deps.upstreams(),
          cache: deps.cache(),
          consensus: deps.consensus?.() ?? null,
          activity: deps.activity?.() ?? null,
          heads: deps.heads?.() ?? null,
          fleet: deps.fleet?.() ?? null,
          passthrough: deps.passthrough?.() ?? null,
        }),
      );
  });
  const metrics = deps.metrics;
  if (metrics !== null) {
    const render = throttledRender(() => metrics.render(), deps.metricsCacheMs);
    app.get(METRICS_PATH, operatorOnly, async (_req, reply) => {
      const text = await render();
      reply.header('content-type', metrics.contentType).header('cache-control', NO_STORE).send(text);
    });
  }
}
