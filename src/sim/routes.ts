/** Fastify routes of the 22 API endpoints, with request counting and fault injection. */
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENDPOINTS, runEndpoint, type ApiContext, type Query } from './api.js';
import type { SimChain } from './chain.js';
import type { Faults } from './faults.js';
import { errorBody } from './render.js';

export interface RouteDeps {
  chain: SimChain;
  faults: Faults;
  now: () => number;
  baseUrl: () => string;
  count: (endpoint: string) => void;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function registerRoutes(app: FastifyInstance, d: RouteDeps): void {
  for (const path of Object.keys(ENDPOINTS)) {
    app.get('/' + path, async (req, reply) => {
      d.count(path);
      const delay = d.faults.delay();
      if (delay > 0) await sleep(delay);
      const ctx: ApiContext = { chain: d.chain, nowMs: d.now(), baseUrl: d.baseUrl() };
      const kind = d.faults.pick();
      const res = runEndpoint(path, req.query as Query, ctx);
      if (kind) {
        d.count('_faults');
        d.faults.apply(kind, req, reply, res.body);
        return reply;
      }
      return reply.code(res.status).type(JSON_TYPE).send(res.body);
    });
  }
  app.setNotFoundHandler((_req, reply) => {
    d.count('_notFound');
    void reply.code(404).type(JSON_TYPE).send(errorBody(404, 'not found'));
  });
}
