/** Control plane under /_sim/ (never faulted, never counted as API traffic). */
import type { FastifyInstance } from 'fastify';
import type { SimChain } from './chain.js';
import { parseFaultConfig, type FaultConfig, type Faults } from './faults.js';

export interface ControlDeps {
  chain: SimChain;
  faults: Faults;
  stats: () => Record<string, number>;
  resetStats: () => void;
  setFaults: (f: FaultConfig) => void;
}

export function registerControl(app: FastifyInstance, d: ControlDeps): void {
  const state = (): Record<string, unknown> => ({
    head: d.chain.head(),
    finalHeight: d.chain.finalHeight(),
    frozen: d.chain.isFrozen(),
    pending: d.chain.pendingCount(),
    faultsInjected: d.faults.injected,
    faults: d.faults.get(),
  });
  app.get('/_sim/stats', async () => ({ requests: d.stats(), ...state() }));
  app.post('/_sim/stats/reset', async () => {
    d.resetStats();
    return { ok: true };
  });
  app.get('/_sim/faults', async () => d.faults.get());
  app.post('/_sim/faults', async (req, reply) => {
    const cfg = parseFaultConfig(req.body);
    if (typeof cfg === 'string') return reply.code(400).send({ error: cfg });
    d.setFaults(cfg);
    return { ok: true, faults: d.faults.get() };
  });
  app.post('/_sim/faults/reset', async () => {
    d.setFaults({});
    return { ok: true, faults: d.faults.get() };
  });
  app.post('/_sim/advance', async (req, reply) => {
    const body = (req.body ?? {}) as { n?: unknown };
    const n = body.n ?? 1;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 10_000_000) {
      return reply.code(400).send({ error: 'n must be an integer in 0..10000000' });
    }
    const before = d.chain.head();
    const head = d.chain.advance(n);
    return { head, advanced: head - before, frozen: d.chain.isFrozen() };
  });
  app.get('/_sim/chain', async () => state());
}
