/**
 * GET/HEAD /pages/<name>: an adapter around serve() (serve.ts) with the page
 * entrance: the page's parameters validated (400 naming the parameter,
 * nothing resolved), a fresh composed page answered synchronously, else
 * composed from its parts through the pipeline. A page is written like any
 * entry (deliver.ts); errors are envelopes (envelope-writer.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { ChainView } from '../chain/types.js';
import type { AccessLog } from '../config/types.js';
import type { PartSummary } from '../cache/types.js';
import type { Pages } from '../pages/engine.js';
import type { PageMetrics } from '../pages/metrics.js';
import type { CompiledPage } from '../page-table/plan.js';
import type { FastHits, PageHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { writeAnswer } from './deliver.js';
import { pageEntrance } from './entrances.js';
import { PAGES_PREFIX } from '../catalogue/paths.js';
import { serve, type Answer } from './serve.js';

export interface PageRouteDeps {
  pages: Pages;
  chain: ChainView;
  metrics: PageMetrics;
  accessLog: AccessLog;
  requestTimeoutMs: number;
  clock: () => number;
  logger: Logger;
  /** Who pays for the parts a composition leads upstream (null: nobody). */
  payer?: PayerOf | null;
  /** Header pairs every API answer carries (EnvelopeWriter.answerHeaders). */
  answer: readonly string[];
  /** The pre-router fast path, remembering URLs answered with a fresh hit (null: none). */
  fast?: FastHits | null;
}

/** `head:HIT,blocks:MISS,…` for access-log lines. */
function partsText(parts: readonly PartSummary[]): string {
  return parts.map((p) => `${p.name}:${p.cache}`).join(',');
}

export function registerPageRoutes(app: FastifyInstance, deps: PageRouteDeps): void {
  const { pages, chain, metrics, accessLog, clock, answer } = deps;
  const payer = deps.payer ?? null;
  const fastHits = deps.fast ?? null;

  const finish = (request: FastifyRequest, page: string, started: number, status: number, a: Answer<unknown>): void => {
    metrics.request(page, a.cache, status);
    if (accessLog === 'off' || (accessLog === 'misses' && a.cache === 'HIT')) return;
    request.log.info(
      {
        reqId: request.id,
        page,
        cache: a.cache,
        status,
        parts: a.parts === null ? undefined : partsText(a.parts),
        ms: Math.round(performance.now() - started),
        err: a.failure?.message ?? undefined,
      },
      'page',
    );
  };

  const handlerFor = (page: CompiledPage) => {
    const entrance = pageEntrance(page, pages);
    const hits: PageHits = {
      hit: (key, now) => pages.freshHit(key, now),
      counted: (status) => metrics.request(page.name, 'HIT', status),
    };
    return function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      const url = request.raw.url ?? '';
      const write = (a: Answer<CanonicalRequest>): void => {
        finish(request, page.name, started, writeAnswer(request, reply, a, chain.bestHead(), answer), a);
        if (fastHits !== null && a.synchronous && a.cache === 'HIT' && a.req !== null)
          fastHits.remember(url, page.def, a.req, hits);
      };
      const a = serve(entrance, {
        url,
        timeoutMs: deps.requestTimeoutMs,
        clock,
        miss: () => ({
          gone: undefined,
          payer: payer === null ? null : payer(request, reply, `pages/${page.name}`),
        }),
      });
      if (a instanceof Promise) void a.then(write);
      else write(a);
    };
  };

  for (const name of pages.names()) {
    app.get(`${PAGES_PREFIX}${name}`, handlerFor(pages.page(name)!));
  }
}
