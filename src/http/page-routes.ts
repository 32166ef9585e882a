/**
 * GET/HEAD /pages/<name>: validate the page's parameters (400 naming the
 * parameter, nothing resolved), answer a fresh composed page synchronously,
 * else compose it from its parts through the pipeline. A page is delivered
 * like any entry (deliver.ts); errors are envelopes (envelope-writer.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ChainView } from '../chain/types.js';
import type { AccessLog } from '../config/types.js';
import { toProxyError } from '../errors/catalog.js';
import type { PartSummary } from '../cache/types.js';
import type { Pages } from '../pages/engine.js';
import type { PageMetrics } from '../pages/metrics.js';
import type { CompiledPage } from '../page-table/plan.js';
import type { FastHits, PageHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { deliver } from './deliver.js';
import { sendEnvelope } from './envelope-writer.js';
import { PAGES_PREFIX } from '../catalogue/paths.js';
import { rawQuery, withTimeout } from './request-util.js';

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

  /** A page the proxy could not answer: its error envelope (`X-Cache: ERROR`, counted by finish). */
  const fail = (reply: FastifyReply, status: number, body: Buffer): number => {
    sendEnvelope(reply, status, body, { head: chain.bestHead(), counted: true });
    return status;
  };

  const finish = (
    request: FastifyRequest,
    page: string,
    started: number,
    status: number,
    cache: string,
    parts: readonly PartSummary[] | null,
    err: string | null,
  ): void => {
    metrics.request(page, cache, status);
    if (accessLog === 'off' || (accessLog === 'misses' && cache === 'HIT')) return;
    request.log.info(
      {
        reqId: request.id,
        page,
        cache,
        status,
        parts: parts === null ? undefined : partsText(parts),
        ms: Math.round(performance.now() - started),
        err: err ?? undefined,
      },
      'page',
    );
  };

  const handlerFor = (page: CompiledPage) => {
    const hits: PageHits = {
      hit: (key, now) => pages.freshHit(key, now),
      counted: (status) => metrics.request(page.name, 'HIT', status),
    };
    return function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      const url = request.raw.url ?? '';
      let req;
      try {
        req = pages.request(page, rawQuery(url));
      } catch (e) {
        const err = toProxyError(e);
        finish(request, page.name, started, fail(reply, err.status, err.toBody()), 'ERROR', null, err.message);
        return;
      }
      const now = clock();
      const hit = pages.hit(req.key, now);
      if (hit !== undefined) {
        finish(
          request,
          page.name,
          started,
          deliver(request, reply, hit, now, chain.bestHead(), answer),
          hit.result,
          hit.entry.composed?.parts ?? null,
          null,
        );
        if (fastHits !== null && hit.result === 'HIT') fastHits.remember(url, page.def, req, hits);
        return;
      }
      withTimeout(
        pages.get(page, req, payer === null ? null : payer(request, reply, `pages/${page.name}`)),
        deps.requestTimeoutMs,
      ).then(
        (r) => {
          if (r.ok) {
            const status = deliver(request, reply, pages.answer(r.entry, r.cache), clock(), chain.bestHead(), answer);
            finish(request, page.name, started, status, r.cache, r.composed.parts, null);
          } else {
            const status = fail(reply, r.error.status, r.error.body);
            finish(request, page.name, started, status, 'ERROR', null, `required part ${r.failedPart}: ${r.error.msg}`);
          }
        },
        (e: unknown) => {
          const err = toProxyError(e);
          finish(request, page.name, started, fail(reply, err.status, err.toBody()), 'ERROR', null, err.message);
        },
      );
    };
  };

  for (const name of pages.names()) {
    app.get(`${PAGES_PREFIX}${name}`, handlerFor(pages.page(name)!));
  }
}
