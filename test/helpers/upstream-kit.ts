/**
 * Helpers for the upstream pool tests: a complete UpstreamConfig with
 * test-friendly values, a Metrics recorder, a block/max-serving handler with a
 * settable head, and a "gate" that holds responses until the test opens it.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UpstreamConfig } from '../../src/config/types.js';
import type { Metrics, UpstreamOutcome } from '../../src/metrics/types.js';
import type { UpstreamRequest } from '../../src/upstream/types.js';
import type { Freshness } from '../../src/catalogue/types.js';
import { sendJson, type Handler } from './fake-upstream.js';
import { untilEmitted } from './until.js';

export function upstreamConfig(patch: Partial<UpstreamConfig> = {}): UpstreamConfig {
  return {
    connectTimeoutMs: 1000,
    attemptTimeoutMs: 2000,
    totalDeadlineMs: 5000,
    maxAttempts: 3,
    hedgeAfterMs: 0,
    hedgeQuantile: 0,
    probeIntervalMs: 60_000,
    maxLagBlocks: 2,
    breakerFailures: 3,
    breakerCooldownMs: 1000,
    connections: 4,
    maxBodyBytes: 1024 * 1024,
    ...patch,
  };
}

interface UpstreamCall {
  upstream: string;
  endpoint: string;
  outcome: UpstreamOutcome;
  seconds: number;
}

export interface RecordingMetrics extends Metrics {
  calls: UpstreamCall[];
  retries: string[];
  hedges: string[];
  outcomes(upstream: string): UpstreamOutcome[];
  /** Resolves once `holds` does, checked as each upstream request is recorded. */
  until(holds: () => boolean, what: string): Promise<void>;
}

export function recordingMetrics(): RecordingMetrics {
  const calls: UpstreamCall[] = [];
  const retries: string[] = [];
  const hedges: string[] = [];
  const recorded = new EventEmitter();
  return {
    calls,
    retries,
    hedges,
    outcomes: (upstream) => calls.filter((c) => c.upstream === upstream).map((c) => c.outcome),
    until: (holds, what) => untilEmitted(recorded, 'call', holds, what),
    request() {},
    upstreamRequest(upstream, endpoint, outcome, seconds) {
      calls.push({ upstream, endpoint, outcome, seconds });
      recorded.emit('call');
    },
    upstreamBackground() {},
    upstreamRetry(endpoint) {
      retries.push(endpoint);
    },
    upstreamHedge(endpoint) {
      hedges.push(endpoint);
    },
    singleFlightJoin() {},
    upstreamSaved() {},
    cacheEviction() {},
    tierError() {},
    rateLimited() {},
  };
}

export function request(
  path = '/tx/list?page=1&page_size=20',
  freshness: Freshness = 'any',
  extra: Partial<UpstreamRequest> = {},
): UpstreamRequest {
  const endpoint = (path.slice(1).split('?')[0] ?? 'tx/list') as UpstreamRequest['endpoint'];
  return { path, endpoint, freshness, ...extra };
}

/** block/max answers `{"height": <head>.0}`; every other path a small success envelope naming `tag`. */
export function chainHandler(tag: string, head: { value: number }): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/block/max') {
      sendJson(
        res,
        200,
        `{"code":0,"msg":"success","data":{"height":${head.value}.0,"server_timestamp":${Date.now()}}}`,
      );
    } else {
      sendJson(res, 200, JSON.stringify({ code: 0, msg: 'success', data: { from: tag } }));
    }
  };
}

interface Gate {
  handler: Handler;
  open(): void;
  held: () => number;
  aborted: () => number;
  /** Resolves once `holds` does, checked as a request is held, let go or aborted. */
  until(holds: () => boolean, what: string): Promise<void>;
}

/** Holds every request until `open()`; `held` counts requests waiting; `aborted` counts requests the client aborted. */
export function gate(inner: Handler): Gate {
  const moved = new EventEmitter();
  let opened = false;
  let waiting: Array<() => void> = [];
  let held = 0;
  let aborted = 0;
  const handler: Handler = (req: IncomingMessage, res: ServerResponse) => {
    res.on('close', () => {
      if (!res.writableFinished) aborted++;
      moved.emit('move');
    });
    if (opened) return inner(req, res);
    held++;
    moved.emit('move');
    return new Promise<void>((resolve) => {
      waiting.push(() => {
        held--;
        moved.emit('move');
        if (!res.destroyed) void inner(req, res);
        resolve();
      });
    });
  };
  return {
    handler,
    open() {
      opened = true;
      const w = waiting;
      waiting = [];
      for (const f of w) f();
    },
    held: () => held,
    aborted: () => aborted,
    until: (holds, what) => untilEmitted(moved, 'move', holds, what),
  };
}
