/**
 * GET/HEAD /pages/<name>: an adapter around serve() (serve.ts) with the page
 * entrance: the page's parameters validated (400 naming the parameter,
 * nothing resolved), a fresh composed page answered synchronously, else
 * composed from its parts through the pipeline. A page leaves through the
 * epilogue like any answer (epilogue.ts), counted under its page's name.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { Pages } from '../pages/engine.js';
import type { CompiledPage } from '../page-table/plan.js';
import type { FastHits, PageHits } from './fast-hit.js';
import type { PayerOf } from './miss-payer.js';
import { exitOf, type Epilogue } from './epilogue.js';
import { pageEntrance } from './entrances.js';
import { PAGES_PREFIX } from '../catalogue/paths.js';
import { serve, type Answer } from './serve.js';

export interface PageRouteDeps {
  pages: Pages;
  requestTimeoutMs: number;
  clock: () => number;
  epilogue: Epilogue;
  /** Who pays for the parts a composition leads upstream (null: nobody). */
  payer?: PayerOf | null;
  /** The pre-router fast path, remembering URLs answered with a fresh hit (null: none). */
  fast?: FastHits | null;
}

export function registerPageRoutes(app: FastifyInstance, deps: PageRouteDeps): void {
  const { pages, clock, epilogue } = deps;
  const payer = deps.payer ?? null;
  const fastHits = deps.fast ?? null;

  const handlerFor = (page: CompiledPage) => {
    const entrance = pageEntrance(page, pages);
    const exit = exitOf(epilogue.pages, page.name);
    const hits: PageHits = { hit: (key, now) => pages.freshHit(key, now), exit };
    return function handler(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      const url = request.raw.url ?? '';
      const write = (a: Answer<CanonicalRequest>): void => {
        epilogue.finish(exit, a, started, { kind: 'routed', request, reply });
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
