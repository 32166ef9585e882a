/** A bare Fastify server on a real socket, its open responses tracked as the proxy does, for drain() tests. */
import Fastify, { type FastifyInstance } from 'fastify';
import { onTestFinished } from 'vitest';
import { drain, trackResponses, type DrainResult, type OpenResponses } from '../../src/http/drain.js';
import { EnvelopeWriter } from '../../src/http/envelope-writer.js';

export const writer = new EnvelopeWriter({ upstreamIsSimulator: false });

/** Called from inside a test: the server's connections are closed when the test ends. */
export async function serve(
  routes: (app: FastifyInstance) => void,
): Promise<{ app: FastifyInstance; open: OpenResponses; url: string }> {
  // As the proxy (src/app.ts): a request arriving during the drain on an open connection is served.
  const app = Fastify({ return503OnClosing: false });
  onTestFinished(() => app.server.closeAllConnections());
  const open = trackResponses(app.server);
  routes(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, open, url };
}

/** drain() of a server from serve(), with nothing upstream to abort. */
export function drainServed(
  served: { app: FastifyInstance; open: OpenResponses },
  deadlineMs: number,
): Promise<DrainResult> {
  const { app, open } = served;
  return drain({
    server: app.server,
    open,
    close: () => app.close(),
    abortUpstream: async () => {},
    deadlineMs,
    writer,
  });
}
