/**
 * The entrances serve() knows: a catalogue endpoint (validated by
 * canonicalize, looked up and resolved by the Resolver) and a composed page
 * (validated, looked up and composed by the page layer).
 */
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CanonicalRequest, EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { Pages } from '../pages/engine.js';
import type { CompiledPage } from '../page-table/plan.js';
import type { Resolver } from '../pipeline/resolver.js';
import type { Entrance } from './serve.js';

const NO_PARTS = (): null => null;

/** A catalogue endpoint. */
export function endpointEntrance(
  endpoint: EndpointDef,
  resolver: Resolver,
  limits: ParamLimits,
): Entrance<CanonicalRequest> {
  return {
    parse: (query) => canonicalize(endpoint, query, limits),
    hit: (req, now) => resolver.hit(req, now),
    resolve: (req, miss) =>
      resolver
        .resolve(req, miss.gone, miss.payer)
        .then((res) => (miss.compressed === true ? resolver.compressed(res) : res))
        .then((res) => ({ res, parts: null })),
    partsOf: NO_PARTS,
  };
}

/** A composed page: a fresh page (or one kept with a stale part) is a hit; else it is composed. */
export function pageEntrance(page: CompiledPage, pages: Pages): Entrance<CanonicalRequest> {
  return {
    parse: (query) => pages.request(page, query),
    hit: (req, now) => pages.hit(req.key, now),
    resolve: (req, miss) =>
      pages.get(page, req, miss.payer).then((r) =>
        r.ok
          ? { res: pages.answer(r.entry, r.cache), parts: r.composed.parts }
          : {
              failure: {
                status: r.error.status,
                body: r.error.body,
                message: `required part ${r.failedPart}: ${r.error.msg}`,
              },
            },
      ),
    partsOf: (res) => res.entry.composed?.parts ?? null,
  };
}
