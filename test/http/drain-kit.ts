/** A bare Fastify server on a real socket, its open responses tracked as the proxy does, for drain() tests. */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';
import { trackResponses, type OpenResponses } from '../../src/http/drain.js';
import { EnvelopeWriter } from '../../src/http/envelope-writer.js';

export const writer = new EnvelopeWriter({ upstreamIsSimulator: false });

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) a.server.closeAllConnections();
});

export async function serve(routes: (app: FastifyInstance) => void): Promise<{ app: FastifyInstance; open: OpenResponses; url: string }> {
  // As the proxy (src/app.ts): a request arriving during the drain on an open connection is served.
  const app = Fastify({ return503OnClosing: false });
  apps.push(app);
  const open = trackResponses(app.server);
  routes(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, open, url };
}
