/**
 * The passthrough entrance of serve() (http/serve.ts): its requests are made
 * by the route from the whole URL (serve gets them parsed), looked up and
 * resolved by the passthrough Resolver.
 */
import { ProxyError } from '../errors/catalog.js';
import type { Entrance } from '../http/serve.js';
import type { Resolver } from '../pipeline/resolver.js';
import type { PassRequest } from './request.js';

export function passEntrance(resolver: Resolver<PassRequest>): Entrance<PassRequest> {
  return {
    parse: () => {
      throw new ProxyError('INTERNAL', undefined, { detail: 'a passthrough request is made by its route' });
    },
    hit: (req, now) => resolver.hit(req, now),
    resolve: (req, miss) =>
      resolver
        .resolve(req, miss.gone, miss.payer)
        .then((res) => (miss.compressed === true ? resolver.compressed(res) : res))
        .then((res) => ({ res, parts: null })),
    partsOf: () => null,
  };
}
